// The mixed uncached load with refreshes while serving, alone on one cached bench store (see
// bench/lib/mixed.ts): what target 5 of docs/performance.md measures (the longest event-loop
// stall during a refresh, and the latency the load saw meanwhile), without the rest of the bench:
//   node --import tsx bench/refresh.ts [universe] [rounds] [seconds]
// universe: default default-x1; rounds (default 1): a fresh service each; seconds (default 20):
// the load's length, refreshes at 1/4 and 3/4 of it. BENCH_CONNECTIONS, BENCH_BUILD_DIR apply;
// HEAP_GROWTH_PERCENT, when set, is passed to the service (an A/B of that setting).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { mixedLoad } from './lib/mixed.js';
import { buildService, createPaidKey, DATA_ROOT, historiesWarmed, startServer, stopServer } from './lib/server.js';
import { printTable } from './lib/table.js';
import { machineLoad, settingsFromEnv } from './lib/util.js';

const universe = process.argv[2] ?? 'default-x1';
const rounds = Number(process.argv[3] ?? '1');
const seconds = Number(process.argv[4] ?? '20');
const dataDir = join(DATA_ROOT, universe);
const settings = settingsFromEnv();

buildService();
const db = new Database(join(dataDir, 'service.sqlite'), { readonly: true, fileMustExist: true });
const codes = (db.prepare('select code from securities order by market, code').all() as { code: string }[]).map((r) => r.code);
db.close();
const key = createPaidKey(dataDir);
const rows: (string | number | null)[][] = [];
for (let round = 1; round <= rounds; round++) {
  const growth = process.env.HEAP_GROWTH_PERCENT;
  const server = await startServer({ dataDir, logLevel: settings.logLevel, env: growth === undefined ? {} : { HEAP_GROWTH_PERCENT: growth } });
  try {
    await historiesWarmed(server);
    const run = await mixedLoad(server, key, codes, { seconds, connections: settings.connections, refreshAtS: [seconds / 4, (3 * seconds) / 4], sampleEveryS: 5 });
    for (const r of run.refreshes) {
      rows.push([round, r.triggeredAtS, r.loadMs, r.computeMs, r.maxStallMs, run.load.requestsPerSecond, run.load.p50Ms, run.load.p99Ms, run.load.maxMs, machineLoad().load1]);
    }
  } finally {
    await stopServer(server);
  }
}
process.stdout.write(`\n${universe} (${codes.length} stocks), mixed uncached load of ${seconds} s at ${settings.connections} connections, refreshes at ${seconds / 4} and ${(3 * seconds) / 4} s\n`);
printTable(['round', 'refresh at s', 'load ms', 'compute ms', 'max stall ms', 'req/s', 'p50', 'p99', 'max', 'load1'], rows);
