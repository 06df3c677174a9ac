// Time, shared by every floor (src/kernel): the clock a service reads (tests pass their own),
// and the Seoul calendar day. The quota day is the calendar day in Asia/Seoul (UTC+9, no
// daylight saving), so the day boundary is 15:00 UTC.

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

const SEOUL_OFFSET_MS = 9 * 3600 * 1000;

/** `YYYY-MM-DD` of the Seoul calendar day containing `at`. */
export function seoulDay(at: Date): string {
  return new Date(at.getTime() + SEOUL_OFFSET_MS).toISOString().slice(0, 10);
}

/** The next Seoul midnight after `at`. */
export function nextSeoulMidnight(at: Date): Date {
  const shifted = at.getTime() + SEOUL_OFFSET_MS;
  const dayStart = shifted - (shifted % 86_400_000);
  return new Date(dayStart + 86_400_000 - SEOUL_OFFSET_MS);
}

/** ISO 8601 with the +09:00 offset, e.g. `2026-11-24T00:00:00+09:00`. */
export function seoulIso(at: Date): string {
  return new Date(at.getTime() + SEOUL_OFFSET_MS).toISOString().replace(/\.\d{3}Z$/, '+09:00');
}
