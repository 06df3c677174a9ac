// Where a service's time goes under a load, thread by thread (Linux /proc), loaded into the
// service with node's --import:
//   BENCH_NODE_FLAGS=--import=./bench/lib/thread-times.mjs BENCH_ASOF_ONLY=per-stock node --import tsx bench/asof.ts full-x1
// Every second it keeps each thread's CPU time; every 2 ms it checks the serving (main) thread's
// event loop, and a turn that took over 40 ms is noted with how much of it the thread ran and how
// much it waited for a core (its schedstat). On SIGTERM (the bench stopping the service) it writes
// to the service's log (stdout): each thread's CPU over the last 10 s, and the long turns of the
// same 10 s, the last load's. Not part of the service: a bench's instrument.

import { readdirSync, readFileSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';
import { isMainThread } from 'node:worker_threads';

const WINDOW_S = 10;
const LONG_TURN_MS = 40;

/** CPU ms of each thread of this process, by `tid:name`. */
function threadCpu() {
  const out = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      // utime and stime, in clock ticks of 10 ms.
      out[`${tid}:${name}`] = (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // a thread that ended
    }
  }
  return out;
}

/** The main thread's time on a core and waiting for one, in ms since it started. */
function schedstat() {
  const [ran, waited] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { ran: ran / 1e6, waited: waited / 1e6 };
}

if (isMainThread) {
  const seconds = [];
  setInterval(() => {
    seconds.push({ at: Date.now(), cpu: threadCpu() });
    if (seconds.length > WINDOW_S + 1) seconds.shift();
  }, 1000).unref();
  const turns = [];
  let last = performance.now();
  let lastSched = schedstat();
  setInterval(() => {
    const now = performance.now();
    const sched = schedstat();
    if (now - last > LONG_TURN_MS) turns.push({ at: Date.now(), ms: now - last, ran: sched.ran - lastSched.ran, waited: sched.waited - lastSched.waited });
    if (turns.length > 10_000) turns.shift();
    last = now;
    lastSched = sched;
  }, 2).unref();
  process.prependListener('SIGTERM', () => {
    const first = seconds[0];
    const end = Date.now();
    const now = threadCpu();
    const span = first === undefined ? 0 : end - first.at;
    const lines = [`thread-times: CPU ms of each thread over the last ${span} ms`];
    for (const [thread, ms] of Object.entries(now)) {
      const used = ms - (first?.cpu[thread] ?? 0);
      if (used > 0) lines.push(`  ${thread} ${used}`);
    }
    const recent = turns.filter((t) => first !== undefined && t.at >= first.at);
    lines.push(`thread-times: ${recent.length} event-loop turns over ${LONG_TURN_MS} ms in that time (ms of the turn: ran on a core / waited for one)`);
    for (const t of recent) lines.push(`  ${t.ms.toFixed(0)}: ${t.ran.toFixed(0)} / ${t.waited.toFixed(0)}`);
    writeSync(1, `${lines.join('\n')}\n`);
  });
}
