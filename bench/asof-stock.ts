// One uncached as-of stock snapshot in process (src/serving/as-of.ts `stock`: a universe of one),
// without HTTP: the CPU and time a call, and a digest of the answers (what get_stock_snapshot
// answers of each: security, price, snapshot, filer note and as-of use) to compare two commits'
// answers on the same store.
//   node --import tsx bench/asof-stock.ts [universe] [calls]
// universe: a store folder under bench/.data (default full-x1; `bench/asof.ts full-x1` makes it);
// calls: default 3000, after 300 to warm up. Every 17th listed stock, rotated over 300 weekdays
// before the store's data day: each (stock, day) pair is new. BENCH_SERIES_READERS (default 1: the
// service's on two cores) and BENCH_ANSWERS (a file: one digest per call, `code day digest`).
// With BENCH_UNIVERSE_DAYS (days, comma-separated): first each day's whole universe, as the first
// as-of rankings of a day computes it, its reads (`loadUniverse`) and computation timed apart.
// With BENCH_HELD_DAYS (days, comma-separated; run with `node --expose-gc`): each day's universe
// computed and held as the as-of answers hold it, and the heap after a full collection each time.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pastDaysOf, snapshotOfDay } from '../src/serving/as-of.js';
import { computeSnapshotYielding } from '../src/serving/build.js';
import { loadUniverse, SnapshotDataset, STOCKS_PER_READ } from '../src/serving/served.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { DATA_ROOT } from './lib/server.js';
import { machineLoad } from './lib/util.js';

const [universe = 'full-x1', callsArg = '3000'] = process.argv.slice(2);
const calls = Number(callsArg);
const dir = join(DATA_ROOT, universe);
const { asOf: dataDay } = JSON.parse(readFileSync(join(dir, 'first-start.json'), 'utf8')) as { asOf: string };
const store = await openSqliteStore(join(dir, 'service.sqlite'), { seriesReaders: Number(process.env.BENCH_SERIES_READERS ?? 1) });
try {
  const served = new SnapshotDataset(await snapshotOfDay(store.market, dataDay), { version: 1, updatedAt: `${dataDay}T12:00:00+09:00`, source: 'demo', nextRefreshAt: null, sources: [] }, store.market, {
    past: pastDaysOf(),
  });
  const heapMiB = () => {
    (globalThis as { gc?: () => void }).gc?.();
    return Math.round(process.memoryUsage().heapUsed / 1024 / 1024);
  };
  const heldDays = (process.env.BENCH_HELD_DAYS ?? '').split(',').filter((d) => d !== '');
  if (heldDays.length > 0) {
    if ((globalThis as { gc?: () => void }).gc === undefined) throw new Error('BENCH_HELD_DAYS needs node --expose-gc');
    await served.past.prepare();
    process.stdout.write(`heap with the data day's dataset: ${heapMiB()} MiB\n`);
    const held = [];
    for (const day of heldDays) {
      held.push(await served.past.universe(day));
      process.stdout.write(`heap with ${held.length} day(s) held (${day}): ${heapMiB()} MiB\n`);
    }
  }
  const fx = await store.market.fx();
  for (const day of (process.env.BENCH_UNIVERSE_DAYS ?? '').split(',').filter((d) => d !== '')) {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const universe = await loadUniverse(store.market, day, STOCKS_PER_READ, { fx });
    const [t1, cpu1] = [performance.now(), process.cpuUsage(cpu0)];
    const computed = await computeSnapshotYielding(universe, day);
    const [t2, cpu2] = [performance.now(), process.cpuUsage(cpu0)];
    const cpuMs = (c: NodeJS.CpuUsage) => Math.round((c.user + c.system) / 1000);
    process.stdout.write(
      `universe of ${day} (${computed.views.size} stocks): reads ${Math.round(t1 - t0)} ms (${cpuMs(cpu1)} ms CPU), computation ${Math.round(t2 - t1)} ms (${cpuMs(cpu2) - cpuMs(cpu1)} ms CPU)\n`,
    );
  }
  const stocks = served.computed.listed.filter((_, i) => i % 17 === 0);
  const days: string[] = [];
  for (const d = new Date(`${dataDay}T00:00:00Z`); days.length < 300; ) {
    d.setUTCDate(d.getUTCDate() - 1);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) days.push(d.toISOString().slice(0, 10));
  }
  const call = async (i: number) => {
    const stock = stocks[i % stocks.length] as (typeof stocks)[number];
    const day = days[(i * 7 + Math.floor(i / stocks.length)) % days.length] as string;
    const { view, asOf } = await served.past.stock(stock.code, day);
    // What get_stock_snapshot answers of it.
    return { code: stock.code, day, answer: { security: view.security, price: view.price, snapshot: view.snapshot, filer: view.filer, asOf } };
  };
  for (let i = 0; i < 300; i++) await call(calls + i);
  const digest = createHash('sha256');
  const lines: string[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let answersMs = 0;
  for (let i = 0; i < calls; i++) {
    const { code, day, answer } = await call(i);
    const a0 = performance.now();
    const text = JSON.stringify(answer);
    digest.update(text);
    if (process.env.BENCH_ANSWERS) lines.push(`${code} ${day} ${createHash('sha1').update(text).digest('hex')}`);
    answersMs += performance.now() - a0;
  }
  const ms = performance.now() - t0 - answersMs;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(
    `${universe}: ${calls} calls over ${stocks.length} stocks and ${days.length} days: ${Math.round((ms * 1000) / calls)} us a call, ` +
      `${Math.round((cpu.user + cpu.system) / calls)} us of CPU a call (the process, with the digests); answers ${digest.digest('hex').slice(0, 16)}; load ${JSON.stringify(machineLoad())}\n`,
  );
  if (process.env.BENCH_ANSWERS) writeFileSync(process.env.BENCH_ANSWERS, `${lines.join('\n')}\n`);
} finally {
  await store.close();
}
