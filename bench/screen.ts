// screen_stocks under load (issue #31): a screen of both markets with three bounds and a sort,
// at BENCH_CONNECTIONS (50) connections, computed for every request (`Cache-Control: no-cache`,
// so the response cache is passed by; the screen rows of the served dataset are built once and
// kept) and from the response cache, beside cached rankings for comparison; and, uncached, the
// issue's own example (KOSDAQ semiconductors with two bounds), whose sector and exchange take a
// pass over the stocks that a market alone does not. The targets are
// judged at full size (full-x1, ~8,700 stocks): uncached p99 <= 20 ms, cached as fast as rankings.
//   node --import tsx bench/screen.ts [universe]
// universe: default-x1 (default) or full-x1 (generated on first use; full size takes minutes).
// BENCH_SECONDS (default 10) and BENCH_CONNECTIONS apply.

import { headersFor, measure, REST, type Measured } from './lib/ceiling.js';
import { serveStore, stopServer, type StoreSpec } from './lib/server.js';
import { printTable } from './lib/table.js';
import { machineLoad, settingsFromEnv } from './lib/util.js';

const universe = process.argv[2] ?? 'default-x1';
const m = /^(default|full)-x([\d.]+)$/.exec(universe);
if (m === null) throw new Error(`universe must be default-xN or full-xN, got ${universe}`);
const spec: StoreSpec = { size: m[1] as StoreSpec['size'], scale: Number(m[2]) };
const settings = settingsFromEnv();

/** Three bounds over both markets, sorted by a fourth field: the screen. */
const SCREEN_PATH = `${REST}/screen?market=KR,US&filters=roe:10:,per::20,operatingMargin:5:&sort=fcfYield:desc&limit=50`;
/** "KOSDAQ semiconductor companies with ROE above 15 % and PER under 10", with looser bounds so a page fills. */
const KOSDAQ_PATH = `${REST}/screen?market=KR&exchanges=KOSDAQ&sectors=Semiconductors&filters=roe:5:,per::30&sort=roe:desc&limit=50`;

const { key, server } = await serveStore(spec, settings);
try {
  const headers = headersFor(key, { method: 'GET' });
  const first = await fetch(`${server.url}${SCREEN_PATH}`, { headers });
  const answer = (await first.json()) as { totalCount: number; count: number; droppedForNull: Record<string, number> };
  if (first.status !== 200) throw new Error(`screen: HTTP ${first.status}`);
  const kosdaq = await fetch(`${server.url}${KOSDAQ_PATH}`, { headers });
  const kosdaqAnswer = (await kosdaq.json()) as { totalCount: number };
  if (kosdaq.status !== 200) throw new Error(`KOSDAQ screen: HTTP ${kosdaq.status}`);
  const seconds = { warmup: settings.warmupSeconds, measured: settings.seconds };
  const run = (path: string, extra: Record<string, string> = {}): Promise<Measured> =>
    measure({ url: `${server.url}${path}`, method: 'GET', headers: { ...headers, ...extra }, countCache: true }, seconds, settings.connections, server.pid);
  const rows: [string, Measured][] = [
    ['REST rankings (default), cached', await run(`${REST}/rankings`)],
    ['REST screen, 3 bounds + sort, cached', await run(SCREEN_PATH)],
    ['REST screen, 3 bounds + sort, uncached (no-cache)', await run(SCREEN_PATH, { 'cache-control': 'no-cache' })],
    ['REST screen, KOSDAQ semiconductors, 2 bounds, uncached', await run(KOSDAQ_PATH, { 'cache-control': 'no-cache' })],
  ];
  process.stdout.write(
    `\n${universe}: the screen passes ${answer.totalCount} stocks (dropped for null: ${JSON.stringify(answer.droppedForNull)}); ` +
      `the KOSDAQ screen ${kosdaqAnswer.totalCount}; ${settings.seconds} s runs, ${settings.connections} connections, load ${JSON.stringify(machineLoad())}\n`,
  );
  printTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'X-Cache hit', 'miss', 'non-2xx'],
    rows.map(([name, r]) => [name, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.cpuUsPerRequest ?? null, r.cacheHits, r.cacheMisses, r.non2xx]),
  );
} finally {
  await stopServer(server);
}
