// `npm run bench -- flood`: a paying key's latency while a flood hits the service
// (docs/security.md, "Admission limits"; docs/performance.md, "Floods"). On each backend, the
// service (a child process on a fresh store, demo universe at scale 0.1, OAUTH=on) answers a
// paying key's cached REST rankings call on a few connections from 127.0.0.1, alone and then
// beside each flood in turn, in rounds (the paying key alone is measured again right before each
// run beside a flood, so each ratio compares two runs a few seconds apart on a shared machine),
// with the service's CPU over each run and, beside the load generator's kept-alive connections, a
// paying call on a new connection every 200 ms (which a flood holding every place would refuse):
//
//   keys     made-up API keys at 50 connections (a new random key on every request, REST GETs
//            and MCP tools/call POSTs alternating), once from one client address (the
//            failed-authentication limit refuses it with 429 after 30 failures a minute), once
//            from a new address per request (X-Forwarded-For, so every key is hashed, looked up
//            and remembered as refused)
//   tokens   made-up OAuth access tokens (`mcp_at_...`, a new one on every request, MCP
//            tools/call POSTs), from one address and from an address per request, as for keys
//   slow     BENCH_SLOW_SOCKETS sockets (1,100: more than MAX_CONNECTIONS) from one other
//            address, 127.0.0.2, each sending a request line and then a header line a second,
//            never ending its headers; a socket the server closes is opened again a second later
//
// The service trusts 127.0.0.1 as its proxy (TRUST_PROXY=127.0.0.1: the floods' X-Forwarded-For
// names their client addresses), so 127.0.0.1's own connections are not capped per address and
// 127.0.0.2's are (MAX_CONNECTIONS_PER_ADDRESS). Reports the paying key's p99 alone and beside
// each flood and their ratio, with the load average. Results in bench/flood.json.
//
//   BENCH_FLOOD_SECONDS=10          seconds of each measured run
//   BENCH_FLOOD_CONNECTIONS=50      connections of the keys and tokens floods
//   BENCH_PAYING_CONNECTIONS=4      connections of the paying key
//   BENCH_SLOW_SOCKETS=1100         sockets of the slow-headers flood
//   BENCH_FLOOD_ROUNDS=3            rounds of each flood (alone, then beside); the median ratio is reported
//   BENCH_FLOOD_MODES=keys,tokens,slow
//   BENCH_FLOOD_BACKENDS=sqlite,postgres
//   BENCH_DATABASE_URL / TEST_DATABASE_URL, BENCH_REDIS_URL / TEST_REDIS_URL: the PostgreSQL
//   database (a schema of its own is created and dropped) and the Redis server for `postgres`

import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runLoad, type LoadResult } from './lib/load.js';
import { buildService, createPaidKey, ROOT, startServer, stopServer } from './lib/server.js';
import { printTable } from './lib/table.js';
import { log, machineLoad, median, percentile, procCpuMicros, round } from './lib/util.js';

const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 10);
const FLOOD_CONNECTIONS = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 50);
const PAYING_CONNECTIONS = Number(process.env.BENCH_PAYING_CONNECTIONS ?? 4);
const SLOW_SOCKETS = Number(process.env.BENCH_SLOW_SOCKETS ?? 1_100);
const ROUNDS = Number(process.env.BENCH_FLOOD_ROUNDS ?? 3);
const MODES = (process.env.BENCH_FLOOD_MODES ?? 'keys,tokens,slow').split(',').map((m) => m.trim());
const BACKENDS = (process.env.BENCH_FLOOD_BACKENDS ?? 'sqlite,postgres').split(',').map((b) => b.trim());
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
const PAYING_PATH = '/api/public/v2/rankings?limit=10';
const MCP_CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_rankings","arguments":{"limit":10}}}';

type Spread = 'one address' | 'an address per request';

/** One flood: what it sends, and from where. */
interface Flood {
  name: string;
  run: (url: string) => Promise<FloodOutcome>;
}

interface FloodOutcome {
  requests: number;
  perSecond: number;
  /** Answers by HTTP status; for slow headers, what happened to the sockets. */
  statuses: Record<string, number>;
  errors: number;
}

/** Calls of the paying key each on a new connection (a client that connects per call). */
interface Probe {
  sent: number;
  answered: number;
  p99Ms: number;
}

/** One round: the paying key alone, then beside the flood. */
interface Round {
  alone: LoadResult;
  paying: LoadResult;
  /** New-connection calls alone and beside the flood. */
  probeAlone: Probe;
  probeBeside: Probe;
  /** The paying key's p99 beside the flood over its p99 alone just before. */
  p99Ratio: number;
  /** The service's CPU (user + system) over the run, as a share of one core: alone, beside the flood. */
  serverCpuAlone: number | null;
  serverCpuBeside: number | null;
  outcome: FloodOutcome;
  load1: number;
}

interface FloodRun {
  flood: string;
  rounds: Round[];
  /** The median of the rounds' ratios. */
  medianRatio: number;
}

interface BackendRun {
  backend: string;
  floods: FloodRun[];
}

/**
 * For `seconds`, a call of the paying key on a new connection (`Connection: close`) every 200 ms:
 * how many were answered 200, and their p99. A flood that holds every connection place shows
 * here (a load generator's kept-alive connections were opened before it).
 */
async function probe(url: string, key: string, seconds: number): Promise<Probe> {
  const until = performance.now() + seconds * 1_000;
  const latencies: number[] = [];
  let sent = 0;
  while (performance.now() < until) {
    sent += 1;
    const t0 = performance.now();
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.request(url, { agent: false, headers: { authorization: `Bearer ${key}`, connection: 'close' }, timeout: 5_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (ok) latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 200));
  }
  const sorted = Float64Array.from(latencies).sort();
  return { sent, answered: latencies.length, p99Ms: round(percentile(sorted, 99), 2) };
}

/** `work`, with the share of one core process `pid` used while it ran. */
async function withCpu<T>(pid: number, work: Promise<T>): Promise<{ value: T; cpu: number | null }> {
  const cpu0 = procCpuMicros(pid);
  const t0 = performance.now();
  const value = await work;
  const cpu1 = procCpuMicros(pid);
  const cpu = cpu0 === null || cpu1 === null ? null : round((cpu1 - cpu0) / 1_000 / (performance.now() - t0), 2);
  return { value, cpu };
}

const randomKey = (): string => `sk_live_${randomBytes(32).toString('base64url')}`;
const randomToken = (): string => `mcp_at_${randomBytes(32).toString('base64url')}`;
const randomAddress = (): string => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
/** The flood's X-Forwarded-For: its own one address (so no flood starts throttled by another's failures), or a new one. */
const fromOf = (spread: Spread, one: string): string => (spread === 'one address' ? one : randomAddress());

function outcomeOf(result: autocannon.Result): FloodOutcome {
  return {
    requests: result.requests.total,
    perSecond: round(result.requests.total / result.duration, 0),
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, s]) => [status, s.count ?? 0])),
    errors: result.errors,
  };
}

/** Made-up API keys, REST and MCP alternating. */
async function keyFlood(url: string, spread: Spread): Promise<FloodOutcome> {
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${randomKey()}`, 'x-forwarded-for': fromOf(spread, '198.51.100.1') });
  const result = await autocannon({
    url,
    connections: FLOOD_CONNECTIONS,
    duration: SECONDS,
    timeout: 10,
    requests: [
      { method: 'GET', path: PAYING_PATH, setupRequest: (r: autocannon.Request) => ({ ...r, headers: headers() }) },
      { method: 'POST', path: '/api/mcp', body: MCP_CALL, setupRequest: (r: autocannon.Request) => ({ ...r, headers: { ...headers(), 'content-type': 'application/json' } }) },
    ],
  });
  return outcomeOf(result);
}

/** Made-up OAuth access tokens at the MCP door (the only one that takes them). */
async function tokenFlood(url: string, spread: Spread): Promise<FloodOutcome> {
  const result = await autocannon({
    url,
    connections: FLOOD_CONNECTIONS,
    duration: SECONDS,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/api/mcp',
        body: MCP_CALL,
        setupRequest: (r: autocannon.Request) => ({ ...r, headers: { authorization: `Bearer ${randomToken()}`, 'x-forwarded-for': fromOf(spread, '198.51.100.2'), 'content-type': 'application/json' } }),
      },
    ],
  });
  return outcomeOf(result);
}

/**
 * SLOW_SOCKETS sockets from 127.0.0.2 dribbling headers for SECONDS (./lib/slow-headers.ts), in a
 * process of their own so their client work does not delay the paying key's load generator.
 */
async function slowHeaders(url: string): Promise<FloodOutcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'lib', 'slow-headers.ts'), url, String(SLOW_SOCKETS), String(SECONDS)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`slow-headers exited with ${String(code)}`)))));
  const counts = JSON.parse(out) as Record<string, number>;
  return { requests: counts.opened ?? 0, perSecond: round((counts.opened ?? 0) / SECONDS, 0), statuses: counts, errors: 0 };
}

function floods(): Flood[] {
  const all: Flood[] = [];
  for (const spread of ['one address', 'an address per request'] as const) {
    if (MODES.includes('keys')) all.push({ name: `made-up keys, ${spread}`, run: (url) => keyFlood(url, spread) });
  }
  for (const spread of ['one address', 'an address per request'] as const) {
    if (MODES.includes('tokens')) all.push({ name: `made-up tokens, ${spread}`, run: (url) => tokenFlood(url, spread) });
  }
  if (MODES.includes('slow')) all.push({ name: `slow headers, ${SLOW_SOCKETS} sockets from one address`, run: slowHeaders });
  return all;
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
    const server = await startServer({ dataDir, logLevel: process.env.BENCH_LOG_LEVEL ?? 'info', demo: { size: 'default', scale: 0.1 }, env: { ...env, TRUST_PROXY: '127.0.0.1', OAUTH: 'on', PUBLIC_URL: 'https://bench.example' } });
    try {
      const key = createPaidKey(dataDir, env);
      const paying = { url: `${server.url}${PAYING_PATH}`, method: 'GET' as const, headers: { authorization: `Bearer ${key}` } };
      await runLoad(paying, 2, PAYING_CONNECTIONS); // warm-up: the response cache, the JIT
      const runs: FloodRun[] = [];
      for (const flood of floods()) {
        const rounds: Round[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          log(`${backend}: round ${i + 1}: the paying key alone, ${SECONDS} s at ${PAYING_CONNECTIONS} connections, then beside ${flood.name}`);
          const alone = await withCpu(server.pid, Promise.all([runLoad(paying, SECONDS, PAYING_CONNECTIONS), probe(paying.url, key, SECONDS)]));
          const beside = await withCpu(server.pid, Promise.all([runLoad(paying, SECONDS, PAYING_CONNECTIONS), probe(paying.url, key, SECONDS), flood.run(server.url)]));
          const [aloneLoad, probeAlone] = alone.value;
          const [under, probeBeside, outcome] = beside.value;
          rounds.push({
            alone: aloneLoad,
            paying: under,
            probeAlone,
            probeBeside,
            p99Ratio: round(under.p99Ms / aloneLoad.p99Ms, 2),
            serverCpuAlone: alone.cpu,
            serverCpuBeside: beside.cpu,
            outcome,
            load1: machineLoad().load1,
          });
          await new Promise((r) => setTimeout(r, 1_000)); // the flood's last connections close
        }
        runs.push({ flood: flood.name, rounds, medianRatio: round(median(rounds.map((r) => r.p99Ratio)), 2) });
      }
      return { backend, floods: runs };
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
  log(`flood bench: ${SECONDS} s runs, floods ${MODES.join(', ')} (${FLOOD_CONNECTIONS} connections, ${SLOW_SOCKETS} slow sockets), paying ${PAYING_CONNECTIONS}; backends ${BACKENDS.join(', ')}; load ${JSON.stringify(loadAtStart)}`);
  buildService();
  const runs: BackendRun[] = [];
  for (const backend of BACKENDS) {
    const run = await benchBackend(backend);
    if (run !== null) runs.push(run);
  }
  const results = {
    meta: { at: new Date().toISOString(), node: process.version, cpus: cpus().length, seconds: SECONDS, rounds: ROUNDS, floodConnections: FLOOD_CONNECTIONS, payingConnections: PAYING_CONNECTIONS, slowSockets: SLOW_SOCKETS, machineLoadAtStart: loadAtStart, machineLoadAtEnd: machineLoad() },
    runs,
  };
  writeFileSync(join(ROOT, 'bench', 'flood.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nA paying key's cached REST call (${PAYING_CONNECTIONS} connections) alone and beside each flood, ${SECONDS} s each, ${ROUNDS} rounds (one line each)\n`);
  printTable(
    ['backend', 'flood', 'alone p99 ms', 'beside p99 ms', 'p99 ratio', 'median ratio', 'paying req/s', 'paying non-2xx/errors', 'new conn. answered, p99 ms: alone / beside', 'server CPU alone/beside', 'flood req/s', 'flood outcome', 'load1'],
    runs.flatMap((r) =>
      r.floods.flatMap((f) =>
        f.rounds.map((x, i) => [
          r.backend,
          f.flood,
          x.alone.p99Ms,
          x.paying.p99Ms,
          x.p99Ratio,
          i === 0 ? f.medianRatio : '',
          x.paying.requestsPerSecond,
          `${x.paying.non2xx}/${x.paying.errors}`,
          `${x.probeAlone.answered}/${x.probeAlone.sent}, ${x.probeAlone.p99Ms} / ${x.probeBeside.answered}/${x.probeBeside.sent}, ${x.probeBeside.p99Ms}`,
          `${x.serverCpuAlone ?? '?'}/${x.serverCpuBeside ?? '?'}`,
          x.outcome.perSecond,
          Object.entries(x.outcome.statuses).map(([s, n]) => `${s}: ${n}`).join(', '),
          x.load1,
        ]),
      ),
    ),
  );
  process.stdout.write('results in bench/flood.json\n');
}
