// How long the event loop went without turning: what a request arriving meanwhile waited.

const STALL_TICK_MS = 10;

/**
 * The longest the event loop went without running a 10 ms timer, less the 10 ms, from start to
 * stop: how long a request that arrived meanwhile could have waited. (`monitorEventLoopDelay`
 * misses a stall before its first sample, and a recompute's first read comes at once.)
 */
export function stallMonitor(): { stop(): void; longestMs(): number } {
  let last = performance.now();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - STALL_TICK_MS);
    last = now;
  };
  const timer = setInterval(tick, STALL_TICK_MS);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      tick();
    },
    longestMs: () => Math.max(0, Math.round(longest)),
  };
}
