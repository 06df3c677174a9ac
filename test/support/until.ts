// Polling for a condition that another process, a timer or a background task makes true.

export interface UntilOptions {
  /** Give up after this many ms (default 10 s). */
  timeoutMs?: number;
  /** Pause between two checks (default 20 ms). */
  intervalMs?: number;
}

/**
 * Checks `condition` until it holds or `timeoutMs` has passed; resolves whether it held (checked
 * once more at the deadline). A test that needs it says so: `assert.ok(await until(...), why)`.
 */
export async function until(condition: () => boolean | Promise<boolean>, options: UntilOptions = {}): Promise<boolean> {
  const { timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return condition();
}
