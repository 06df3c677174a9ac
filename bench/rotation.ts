// The uncached rotation alone on one cached bench store (see bench/lib/rotation.ts):
//   node --import tsx bench/rotation.ts [universe] [rounds]
// universe: default default-x1; rounds (default 1): the whole rotation again on the same service,
// the second with the history cache as the first left it. BENCH_SECONDS, BENCH_CONNECTIONS apply.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { currentRss, rotateTools } from './lib/rotation.js';
import { buildService, createPaidKey, DATA_ROOT, peakRss, startServer, stopServer } from './lib/server.js';
import { printTable } from './lib/table.js';
import { machineLoad, round, settingsFromEnv } from './lib/util.js';

const universe = process.argv[2] ?? 'default-x1';
const dataDir = join(DATA_ROOT, universe);
const settings = settingsFromEnv();
const mib = (b: number | null) => (b === null ? '-' : round(b / 1024 / 1024, 0));

buildService();
const db = new Database(join(dataDir, 'service.sqlite'), { readonly: true, fileMustExist: true });
const codes = (db.prepare('select code from securities order by market, code').all() as { code: string }[]).map((r) => r.code);
db.close();
const key = createPaidKey(dataDir);
const load = machineLoad();
const server = await startServer({ dataDir, logLevel: settings.logLevel });
const rssStart = currentRss(server.pid);
const rounds = Number(process.argv[3] ?? '1');
try {
  for (let round = 1; round <= rounds; round++) {
    const rows = await rotateTools(server, key, codes, settings.connections);
    process.stdout.write(`\n${universe} (${codes.length} stocks), round ${round}, ${settings.seconds} s runs, load at start ${JSON.stringify(load)}; RSS after start ${mib(rssStart)} MiB, peak ${mib(peakRss(server.pid))} MiB\n`);
    printTable(
      ['tool', `req/s (${settings.connections})`, 'p50', 'p99', 'max', 'req/s (1)', 'p50', 'p99', 'hit/miss', 'RSS MiB', 'load1'],
      rows.map((r) => [r.tool, r.at50.requestsPerSecond, r.at50.p50Ms, r.at50.p99Ms, r.at50.maxMs, r.at1.requestsPerSecond, r.at1.p50Ms, r.at1.p99Ms, `${(r.at50.cacheHits ?? 0) + (r.at1.cacheHits ?? 0)}/${(r.at50.cacheMisses ?? 0) + (r.at1.cacheMisses ?? 0)}`, mib(r.at1.rssBytes), r.at1.load1]),
    );
  }
} finally {
  await stopServer(server);
}
