// Target 4 of docs/performance.md on its own: the cached read paths against the ceiling, on one cached
// bench store, a few rounds in one process so that the ratios of one window can be compared.
//   node --import tsx bench/cached.ts [universe] [rounds] [kinds]
// universe: default default-x1; rounds: default 2; kinds: comma-separated scenario kinds
// (default rest-rankings,mcp-call; `all` for every scenario). BENCH_SECONDS, BENCH_CONNECTIONS apply.

import { join } from 'node:path';
import { readPaths, type Scenario } from './lib/ceiling.js';
import { buildService, createPaidKey, DATA_ROOT, historiesWarmed, startServer, stopServer } from './lib/server.js';
import { printTable } from './lib/table.js';
import { machineLoad, settingsFromEnv } from './lib/util.js';

const universe = process.argv[2] ?? 'default-x1';
const rounds = Number(process.argv[3] ?? '2');
const kindsArg = process.argv[4] ?? 'rest-rankings,mcp-call';
const kinds = kindsArg === 'all' ? undefined : (kindsArg.split(',') as Scenario['kind'][]);
const settings = settingsFromEnv();
const dataDir = join(DATA_ROOT, universe);

buildService();
const key = createPaidKey(dataDir);
const server = await startServer({ dataDir, logLevel: settings.logLevel });
try {
  // The fill's line is at info level; a quieter log cannot say when it is done.
  const fillLogged = ['info', 'debug', 'trace'].includes(settings.logLevel);
  if (fillLogged && !(await historiesWarmed(server))) process.stdout.write('the history fill did not finish within 120 s; round 1 runs beside it\n');
  for (let round = 1; round <= rounds; round++) {
    const rows = await readPaths(server, key, '', `${universe} round ${round}`, {
      seconds: { warmup: settings.warmupSeconds, measured: settings.seconds },
      connections: settings.connections,
      fastify: false,
      ...(kinds === undefined ? {} : { kinds }),
    });
    process.stdout.write(`\n${universe}, round ${round}, ${settings.seconds} s runs, ${settings.connections} connections, load ${JSON.stringify(machineLoad())}\n`);
    printTable(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'ceiling req/s', 'ceiling p99', 'ceiling CPU us/req', 'ratio'],
      rows.map((r) => [r.scenario, r.server.requestsPerSecond, r.server.p50Ms, r.server.p99Ms, r.server.cpuUsPerRequest ?? null, r.ceiling.requestsPerSecond, r.ceiling.p99Ms, r.ceiling.cpuUsPerRequest ?? null, r.ratio]),
    );
  }
} finally {
  await stopServer(server);
}
