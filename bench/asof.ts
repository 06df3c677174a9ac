// Answers as of a past day (issue #41, src/serving/as-of.ts) under load:
// - uncached as-of per-stock answers (snapshot: a universe of one; price history and valuation
//   band: the history cache cut at the day) at BENCH_CONNECTIONS (50) connections, each request
//   a new (stock, day) pair, so neither the response cache nor a held day answers;
// - the first as-of rankings and screen of a day (the day's universe computed), one request each;
// - later as-of rankings of a held day, computed for every request (`Cache-Control: no-cache`);
// - the service's RSS once AS_OF_CACHE_DAYS (12) days are held.
// Targets at full size (full-x1, ~8,700 stocks): per-stock p99 <= 50 ms, first rankings or screen
// of a day <= 2 s, RSS <= 1.5 GiB with 12 days held. Beside the client's latencies, the service's
// own time of the requests (its request log lines' durationMs): what of the latency is not queueing.
//   npm run bench -- asof [universe]      (or: node --import tsx bench/asof.ts [universe])
// universe: default-x1 (default) or full-x1 (generated on first use; full size takes minutes).
// BENCH_SECONDS (default 10) and BENCH_CONNECTIONS apply. BENCH_ASOF_ONLY=per-stock runs the
// uncached per-stock scenarios alone (for A/B runs of a setting: a minute instead of four), and
// BENCH_ASOF_ONLY=snapshot (or prices, baseline, band) one of them. With
// BENCH_NODE_FLAGS=--import=./bench/lib/thread-times.mjs the service's log ends with each
// thread's CPU and the event loop's long turns over the last 10 s (./lib/thread-times.mjs).

import { headersFor, measure, REST, type Measured } from './lib/ceiling.js';
import { historiesWarmed, requestDurations, serveStore, stopServer, type StoreSpec } from './lib/server.js';
import { printTable } from './lib/table.js';
import { machineLoad, percentile, procStatusBytes, round, settingsFromEnv } from './lib/util.js';

/** Trading-ish days before `day`: every weekday, newest first. */
function weekdaysBefore(day: string, count: number): string[] {
  const out: string[] = [];
  const d = new Date(`${day}T00:00:00Z`);
  while (out.length < count) {
    d.setUTCDate(d.getUTCDate() - 1);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

export async function main(universe = process.argv[3] ?? process.argv[2] ?? 'default-x1'): Promise<void> {
  const m = /^(default|full)-x([\d.]+)$/.exec(universe === 'asof' ? 'default-x1' : universe);
  if (m === null) throw new Error(`universe must be default-xN or full-xN, got ${universe}`);
  const spec: StoreSpec = { size: m[1] as StoreSpec['size'], scale: Number(m[2]) };
  const settings = settingsFromEnv();
  const { key, server } = await serveStore(spec, settings);
  try {
    const headers = headersFor(key, { method: 'GET' });
    const get = async (path: string): Promise<{ ms: number; body: unknown }> => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}${path}`, { headers: { ...headers, 'cache-control': 'no-cache' } });
      const body = (await res.json()) as unknown;
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(body)}`);
      return { ms: round(performance.now() - t0, 0), body };
    };
    // As the cached-path benches do: measured after the history fill that follows the swap (it
    // reads every stock's history for ~20 s, and the first scenario would run beside it).
    if (!(await historiesWarmed(server))) process.stdout.write('the history fill did not finish within 120 s; the first scenario runs beside it\n');
    const health = await get(`${REST}/health`);
    const { dataAsOf, asOf } = health.body as { dataAsOf: string; asOf: { earliest: string } };
    const rows = (await get(`${REST}/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`)).body as { rows: { ticker: string }[] };
    const codes = rows.rows.map((r) => r.ticker);
    // Two years of weekdays: each (stock, day) pair of a run is new.
    const days = weekdaysBefore(dataAsOf, 500).filter((d) => d >= asOf.earliest);
    const seconds = { warmup: settings.warmupSeconds, measured: settings.seconds };
    const rotating = (path: (code: string, day: string) => string) => {
      let i = 0;
      return () => {
        const code = codes[i % codes.length] as string;
        const day = days[(i * 7 + Math.floor(i / codes.length)) % days.length] as string;
        i++;
        return path(encodeURIComponent(code), day);
      };
    };
    // Each run's measured window (epoch ms), to take the service's own time of its requests from its log.
    const windows = new Map<Measured, [number, number]>();
    const run = async (nextPath: () => string): Promise<Measured> => {
      const measured = await measure({ url: `${server.url}${REST}/rankings`, method: 'GET', headers: { ...headers, 'cache-control': 'no-cache' }, nextPath, countCache: true }, seconds, settings.connections, server.pid);
      const end = Date.now();
      windows.set(measured, [end - seconds.measured * 1000, end]);
      return measured;
    };
    /** p50 and p99 of the service's own time (from the request read to the response sent) in `r`'s window: what is not queueing. */
    const serverTime = (r: Measured): [number | null, number | null] => {
      const [from, to] = windows.get(r) ?? [0, 0];
      const ms = Float64Array.from(requestDurations(server.logFile, from, to)).sort();
      return ms.length === 0 ? [null, null] : [round(percentile(ms, 50), 2), round(percentile(ms, 99), 2)];
    };
    // BENCH_ASOF_ONLY: `per-stock` runs these four alone, or one of them by its name.
    const only = process.env.BENCH_ASOF_ONLY;
    const perStock: [string, string, (c: string, d: string) => string][] = [
      ['snapshot', 'as-of snapshot, uncached (new stock and day each)', (c, d) => `${REST}/stocks/${c}/snapshot?asOf=${d}`],
      ['prices', 'as-of price history (260 days), uncached', (c, d) => `${REST}/stocks/${c}/prices?asOf=${d}`],
      ['baseline', 'baseline: price history to= the day, no asOf, uncached', (c, d) => `${REST}/stocks/${c}/prices?to=${d}`],
      ['band', 'as-of valuation band (PER from 2020), uncached', (c, d) => `${REST}/stocks/${c}/valuation-band?asOf=${d}`],
    ];
    const names = perStock.map(([name]) => name);
    if (only !== undefined && only !== 'per-stock' && !names.includes(only)) throw new Error(`BENCH_ASOF_ONLY=${only}: expected per-stock or one of ${names.join(', ')}`);
    const load: [string, Measured][] = [];
    for (const [name, title, path] of perStock) if (only === undefined || only === 'per-stock' || only === name) load.push([title, await run(rotating(path))]);
    // The first rankings and screens of new days: each computes its day's universe.
    const firsts: [string, number][] = [];
    const perStockOnly = only !== undefined;
    const held = perStockOnly ? [] : days.slice(0, 12);
    for (const [i, day] of held.entries()) {
      const path = i % 4 === 3 ? `${REST}/screen?market=KR,US&filters=roe:10:,per::20&sort=roe:desc&limit=50&asOf=${day}` : `${REST}/rankings?market=KR,US&limit=50&asOf=${day}`;
      firsts.push([`first as-of ${i % 4 === 3 ? 'screen' : 'rankings'} of ${day}`, (await get(path)).ms]);
    }
    const rss = procStatusBytes(server.pid, 'VmRSS');
    const hwm = procStatusBytes(server.pid, 'VmHWM');
    const heldDay = held[0] as string;
    if (!perStockOnly) load.push(['as-of rankings of a held day, no-cache', await run(() => `${REST}/rankings?market=KR,US&limit=50&asOf=${heldDay}`)]);
    if (!perStockOnly) load.push(['as-of score of a held day, no-cache (rotating stocks)', await run(rotating((c) => `${REST}/stocks/${c}/score?asOf=${heldDay}`))]);
    process.stdout.write(
      `\n${universe}: data day ${dataAsOf}, earliest as-of day ${asOf.earliest} (the first health call, which waits for it: ${health.ms} ms); ` +
        `${codes.length} stocks rotated over ${days.length} days; ${settings.seconds} s runs, ${settings.connections} connections, load ${JSON.stringify(machineLoad())}\n`,
    );
    printTable(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'service p50 ms', 'service p99 ms', 'CPU us/req', 'X-Cache hit', 'miss', 'non-2xx'],
      load.map(([name, r]) => [name, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.maxMs, ...serverTime(r), r.cpuUsPerRequest ?? null, r.cacheHits, r.cacheMisses, r.non2xx]),
    );
    process.stdout.write('service p50/p99: the service\'s own time of a request (its log line\'s durationMs, from the request read to the response sent); the rest of p50/p99 is queueing\n');
    if (perStockOnly) return;
    printTable(['first call of a day (one request)', 'ms'], firsts);
    process.stdout.write(`RSS with ${held.length} days held: ${rss === null ? '?' : round(rss / 1024 / 1024, 0)} MiB (peak ${hwm === null ? '?' : round(hwm / 1024 / 1024, 0)} MiB)\n`);
  } finally {
    await stopServer(server);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
