// `npm run bench -- flood`: a paying key's latency while a flood of made-up keys hits both doors
// (docs/security.md, "Admission limits"). On each backend, the service (a child process on a
// fresh store, demo universe at scale 0.1) answers a paying key's cached REST rankings call on a
// few connections, first alone, then beside a flood at 50 connections (a new random key on every
// request, REST GETs and MCP tools/call POSTs alternating): once from one client address (the
// failed-authentication limit refuses it with 429 after 30 failures a minute), once spread over
// a new address per request (TRUST_PROXY=loopback and a random X-Forwarded-For, so every key is
// hashed, looked up and remembered as refused). Reports the paying key's p99 with and without
// the flood and their ratio. Results in bench/flood.json.
//
//   BENCH_FLOOD_SECONDS=10          seconds of each measured run
//   BENCH_FLOOD_CONNECTIONS=50      connections of the flood
//   BENCH_PAYING_CONNECTIONS=4      connections of the paying key
//   BENCH_FLOOD_BACKENDS=sqlite,postgres
//   BENCH_DATABASE_URL / TEST_DATABASE_URL, BENCH_REDIS_URL / TEST_REDIS_URL: the PostgreSQL
//   database (a schema of its own is created and dropped) and the Redis server for `postgres`

import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runLoad, type LoadResult } from './lib/load.js';
import { buildService, createPaidKey, ROOT, startServer, stopServer } from './lib/server.js';
import { printTable } from './lib/table.js';
import { log, machineLoad, round } from './lib/util.js';

const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 10);
const FLOOD_CONNECTIONS = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 50);
const PAYING_CONNECTIONS = Number(process.env.BENCH_PAYING_CONNECTIONS ?? 4);
const BACKENDS = (process.env.BENCH_FLOOD_BACKENDS ?? 'sqlite,postgres').split(',').map((b) => b.trim());
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
const PAYING_PATH = '/api/public/v2/rankings?limit=10';

type Spread = 'one address' | 'an address per request';

interface FloodRun {
  spread: Spread;
  paying: LoadResult;
  /** The paying key's p99 under the flood over its p99 alone. */
  p99Ratio: number;
  floodRequests: number;
  floodPerSecond: number;
  floodStatuses: Record<string, number>;
  floodErrors: number;
  load1: number;
}

interface BackendRun {
  backend: string;
  alone: LoadResult;
  floods: FloodRun[];
}

const randomKey = (): string => `sk_live_${randomBytes(32).toString('base64url')}`;
const randomAddress = (): string => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

function flood(url: string, spread: Spread): Promise<autocannon.Result> {
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${randomKey()}`, 'x-forwarded-for': spread === 'one address' ? '198.51.100.1' : randomAddress() });
  return autocannon({
    url,
    connections: FLOOD_CONNECTIONS,
    duration: SECONDS,
    timeout: 10,
    requests: [
      { method: 'GET', path: PAYING_PATH, setupRequest: (r: autocannon.Request) => ({ ...r, headers: headers() }) },
      {
        method: 'POST',
        path: '/api/mcp',
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_rankings","arguments":{"limit":10}}}',
        setupRequest: (r: autocannon.Request) => ({ ...r, headers: { ...headers(), 'content-type': 'application/json' } }),
      },
    ],
  });
}

/** A schema of its own in the PostgreSQL database, and the URL that selects it. */
async function freshSchema(databaseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

async function benchBackend(backend: string): Promise<BackendRun | null> {
  const dataDir = join(ROOT, '.tmp', `bench-flood-${backend}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });
  let env: Record<string, string> = {};
  let drop = async (): Promise<void> => undefined;
  if (backend === 'postgres') {
    if (DATABASE_URL === undefined || REDIS_URL === undefined) {
      log('postgres: BENCH_DATABASE_URL/TEST_DATABASE_URL or BENCH_REDIS_URL/TEST_REDIS_URL not set; skipped');
      return null;
    }
    const schema = await freshSchema(DATABASE_URL);
    drop = schema.drop;
    env = { DATABASE_URL: schema.url, REDIS_URL, REDIS_KEY_PREFIX: `bench${randomBytes(4).toString('hex')}` };
  }
  try {
    log(`${backend}: first start (demo universe at scale 0.1)`);
    const server = await startServer({ dataDir, logLevel: process.env.BENCH_LOG_LEVEL ?? 'info', demo: { size: 'default', scale: 0.1 }, env: { ...env, TRUST_PROXY: 'loopback' } });
    try {
      const key = createPaidKey(dataDir, env);
      const paying = { url: `${server.url}${PAYING_PATH}`, method: 'GET' as const, headers: { authorization: `Bearer ${key}` } };
      await runLoad(paying, 2, PAYING_CONNECTIONS); // warm-up: the response cache, the JIT
      log(`${backend}: the paying key alone, ${SECONDS} s at ${PAYING_CONNECTIONS} connections`);
      const alone = await runLoad(paying, SECONDS, PAYING_CONNECTIONS);
      const floods: FloodRun[] = [];
      for (const spread of ['one address', 'an address per request'] as const) {
        log(`${backend}: the paying key beside a flood of random keys from ${spread}, ${FLOOD_CONNECTIONS} connections`);
        const [under, f] = await Promise.all([runLoad(paying, SECONDS, PAYING_CONNECTIONS), flood(server.url, spread)]);
        floods.push({
          spread,
          paying: under,
          p99Ratio: round(under.p99Ms / alone.p99Ms, 2),
          floodRequests: f.requests.total,
          floodPerSecond: round(f.requests.total / f.duration, 0),
          floodStatuses: Object.fromEntries(Object.entries(f.statusCodeStats ?? {}).map(([status, s]) => [status, s.count ?? 0])),
          floodErrors: f.errors,
          load1: machineLoad().load1,
        });
      }
      return { backend, alone, floods };
    } finally {
      await stopServer(server);
    }
  } finally {
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  const loadAtStart = machineLoad();
  log(`flood bench: ${SECONDS} s runs, flood ${FLOOD_CONNECTIONS} connections, paying ${PAYING_CONNECTIONS}; backends ${BACKENDS.join(', ')}; load ${JSON.stringify(loadAtStart)}`);
  buildService();
  const runs: BackendRun[] = [];
  for (const backend of BACKENDS) {
    const run = await benchBackend(backend);
    if (run !== null) runs.push(run);
  }
  const results = {
    meta: { at: new Date().toISOString(), node: process.version, cpus: cpus().length, seconds: SECONDS, floodConnections: FLOOD_CONNECTIONS, payingConnections: PAYING_CONNECTIONS, machineLoadAtStart: loadAtStart, machineLoadAtEnd: machineLoad() },
    runs,
  };
  writeFileSync(join(ROOT, 'bench', 'flood.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nA paying key's cached REST call (${PAYING_CONNECTIONS} connections) alone and beside a flood of random keys (${FLOOD_CONNECTIONS} connections), ${SECONDS} s each\n`);
  printTable(
    ['backend', 'flood from', 'paying req/s', 'paying p50 ms', 'paying p99 ms', 'alone p99 ms', 'p99 ratio', 'flood req/s', 'flood statuses', 'load1'],
    runs.flatMap((r) =>
      r.floods.map((f) => [r.backend, f.spread, f.paying.requestsPerSecond, f.paying.p50Ms, f.paying.p99Ms, r.alone.p99Ms, f.p99Ratio, f.floodPerSecond, Object.entries(f.floodStatuses).map(([s, n]) => `${s}: ${n}`).join(', '), f.load1]),
    ),
  );
  process.stdout.write('results in bench/flood.json\n');
}
