// Growth against a base period. One rule everywhere (V3 yoy and momentum, snapshot growth,
// trade YoY): change = (current - base) / |base|. Dividing by |base| keeps the sign meaning
// "better" when the base was a loss (-100 -> -50 is +50%, not -50%); a zero base has no
// defined growth.

/** (current - base) / |base| as a fraction; null when either is missing or the base is 0. */
export function changeRatio(current: number | null | undefined, base: number | null | undefined): number | null {
  if (current === null || current === undefined || base === null || base === undefined || base === 0) return null;
  return (current - base) / Math.abs(base);
}

/** `changeRatio` in percent. */
export function changePct(current: number | null | undefined, base: number | null | undefined): number | null {
  if (current === null || current === undefined || base === null || base === undefined || base === 0) return null;
  // Multiply before dividing so that whole-number inputs give exact results (20 x 100 / 100).
  return ((current - base) * 100) / Math.abs(base);
}
