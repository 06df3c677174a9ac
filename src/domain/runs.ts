// A refresh run's outcome from its sources' outcomes: shared by the refresh that records it and
// the readiness report that shows it.

/**
 * A refresh run's outcome from its sources' states: `failed` when every source failed (nothing
 * new came in), `partial` when some did, `ok` when none did (a run with no real source, the
 * demo, is `ok`).
 */
export function runOutcome(sources: readonly { ok: boolean }[]): 'ok' | 'partial' | 'failed' {
  if (sources.every((s) => s.ok)) return 'ok';
  return sources.some((s) => s.ok) ? 'partial' : 'failed';
}
