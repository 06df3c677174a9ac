// Full recompute of the dataset snapshot, in-process, on a store directory:
// loadUniverse (read everything the builder needs) and computeSnapshot (pure), timed
// separately, repeated. Run as a child process by bench/run.ts so its heap is its own:
//   node --import tsx bench/recompute.ts <dataDir> <repeats> [asOf]
// Prints one JSON line.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seoulDay, systemClock } from '../src/access/clock.js';
import { computeSnapshot } from '../src/refresh/build.js';
import { loadUniverse } from '../src/refresh/served.js';
import { openSqliteStore } from '../src/store/sqlite.js';

const [dataDir, repeatsArg, asOfArg] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: recompute.ts <dataDir> <repeats> [asOf]');
const repeats = Number(repeatsArg ?? 3);
const asOf = asOfArg ?? seoulDay(systemClock());

function peakRss(): number | null {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : null;
}

const store = await openSqliteStore(join(dataDir, 'service.sqlite'));
const loadMs: number[] = [];
const computeMs: number[] = [];
let counts: unknown = null;
try {
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const universe = await loadUniverse(store, asOf);
    const t1 = performance.now();
    const computed = computeSnapshot(universe, asOf);
    const t2 = performance.now();
    loadMs.push(Math.round(t1 - t0));
    computeMs.push(Math.round(t2 - t1));
    counts = computed.counts;
  }
} finally {
  await store.close();
}
process.stdout.write(`${JSON.stringify({ asOf, loadMs, computeMs, counts, peakRssBytes: peakRss() })}\n`);
