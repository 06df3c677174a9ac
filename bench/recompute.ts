// Full recompute of the dataset snapshot, in-process, on a store directory:
// loadUniverse (read everything the builder needs) and computeSnapshot (pure), timed
// separately, repeated; and, after each, the screener's price changes read again on their own
// (`priceChangesMs`: the part of the load they take when nothing runs beside them), and the
// coverage report the dataset computes once (`coverageMs`, src/serving/coverage.ts). Run as a child process by bench/run.ts so its heap is its own:
//   node --import tsx bench/recompute.ts <dataDir> <repeats> [asOf]
// Prints one JSON line.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seoulDay, systemClock } from '../src/kernel/clock.js';
import type * as Build from '../src/serving/build.js';
import type * as Coverage from '../src/serving/coverage.js';
import type * as Config from '../src/config.js';
import type * as PriceChanges from '../src/serving/price-changes.js';
import type * as Stalls from '../src/runtime/stalls.js';
import type * as Served from '../src/serving/served.js';
import type * as Sqlite from '../src/store/sqlite.js';
import { procStatusBytes } from './lib/util.js';

// The compiled service (what `serve` runs) when bench/run.ts has built it (or BENCH_BUILD_DIR
// names a build, as for bench/lib/server.ts: an A/B of two builds), else the sources through tsx
// (whose name-keeping helpers cost a few percent).
const buildDir = process.env.BENCH_BUILD_DIR;
const built = buildDir === undefined ? join(import.meta.dirname, '..', '.tmp', 'bench-build', 'dist') : join(resolve(buildDir), 'dist');
const from = (module: string) => (existsSync(join(built, `${module}.js`)) ? pathToFileURL(join(built, `${module}.js`)).href : `../src/${module}.js`);
const { computeSnapshotYielding } = (await import(from('serving/build'))) as typeof Build;
const { loadUniverse } = (await import(from('serving/served'))) as typeof Served;
const { readPriceChanges } = (await import(from('serving/price-changes'))) as typeof PriceChanges;
const { openSqliteStore } = (await import(from('store/sqlite'))) as typeof Sqlite;
const { stallMonitor } = (await import(from('runtime/stalls'))) as typeof Stalls;
const { loadConfig } = (await import(from('config'))) as typeof Config;
const { coverageOf } = (await import(from('serving/coverage'))) as typeof Coverage;

const [dataDir, repeatsArg, asOfArg] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: recompute.ts <dataDir> <repeats> [asOf]');
const repeats = Number(repeatsArg ?? 3);
const asOf = asOfArg ?? seoulDay(systemClock());

// With the reader threads a serving instance has (SERIES_READERS, as the service reads it), which
// read the recent bars and flows.
const seriesReaders = loadConfig().SERIES_READERS;
const store = await openSqliteStore(join(dataDir, 'service.sqlite'), { seriesReaders });
const loadMs: number[] = [];
const computeMs: number[] = [];
/** The longest the event loop was held during each recompute (what a serving instance cannot answer in). */
const maxStallMs: number[] = [];
const priceChangesMs: number[] = [];
const coverageMs: number[] = [];
let counts: unknown = null;
try {
  for (let i = 0; i < repeats; i++) {
    // As the service measures its refreshes (`maxStallMs`).
    const stalls = stallMonitor();
    const t0 = performance.now();
    const universe = await loadUniverse(store.market, asOf);
    const t1 = performance.now();
    const computed = await computeSnapshotYielding(universe, asOf);
    const t2 = performance.now();
    stalls.stop();
    loadMs.push(Math.round(t1 - t0));
    computeMs.push(Math.round(t2 - t1));
    maxStallMs.push(stalls.longestMs());
    counts = computed.counts;
    const tc = performance.now();
    coverageOf(asOf, computed.views.values(), computed.listed);
    coverageMs.push(Math.round((performance.now() - tc) * 10) / 10);
    const t3 = performance.now();
    await readPriceChanges(store.market, universe.recentBars);
    priceChangesMs.push(Math.round(performance.now() - t3));
  }
} finally {
  await store.close();
}
process.stdout.write(`${JSON.stringify({ asOf, loadMs, computeMs, maxStallMs, priceChangesMs, coverageMs, counts, peakRssBytes: procStatusBytes('self', 'VmHWM'), seriesReaders, compiled: existsSync(built) })}\n`);
