// The read paths measured against the ceiling: each scenario's request against the service,
// then the same body and headers from a bare node:http server (bench/bare-server.ts) and from
// a bare Fastify app. ratio = service req/s / ceiling req/s. Used by bench/run.ts and, on its
// own, by bench/cached.ts.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad, type LoadResult, type LoadTarget } from './load.js';
import { ROOT, type RunningServer } from './server.js';
import { drained, freePort, log, machineLoad, procCpuMicros, round } from './util.js';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Which target of the note applies (cached read, MCP call, ...). */
  kind: 'rest-rankings' | 'rest-read' | 'rest-history' | 'mcp-call' | 'mcp-list';
}

export const REST = '/api/public/v2';
const rpc = (method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });

export function scenarios(code: string): Scenario[] {
  return [
    { name: 'REST rankings (default)', kind: 'rest-rankings', method: 'GET', path: `${REST}/rankings` },
    { name: 'REST rankings KR,US limit=200', kind: 'rest-rankings', method: 'GET', path: `${REST}/rankings?market=KR,US&limit=200` },
    { name: 'REST stock score', kind: 'rest-read', method: 'GET', path: `${REST}/stocks/${code}/score` },
    { name: 'REST price history limit=2600', kind: 'rest-history', method: 'GET', path: `${REST}/stocks/${code}/prices?limit=2600` },
    { name: 'REST valuation band PER from 2014', kind: 'rest-history', method: 'GET', path: `${REST}/stocks/${code}/valuation-band?type=per&from=2014-01-01` },
    { name: 'MCP tools/call get_rankings', kind: 'mcp-call', method: 'POST', path: '/api/mcp', body: rpc('tools/call', { name: 'get_rankings', arguments: {} }) },
    { name: 'MCP tools/list', kind: 'mcp-list', method: 'POST', path: '/api/mcp', body: rpc('tools/list') },
  ];
}

export function headersFor(key: string, scenario: { method: 'GET' | 'POST' }): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    accept: 'application/json',
    ...(scenario.method === 'POST' ? { 'content-type': 'application/json' } : {}),
  };
}

export type Measured = LoadResult & {
  load1: number;
  /**
   * The server's CPU time (user + system) over the measured run divided by its requests, when
   * its pid is given: less moved by other work on the machine than req/s, so the figure to
   * compare two builds by.
   */
  cpuUsPerRequest?: number;
};

/** A warm-up run, the measured run, each followed by a drain. */
export async function measure(target: LoadTarget, seconds: { warmup: number; measured: number }, connections: number, pid?: number): Promise<Measured> {
  await runLoad(target, seconds.warmup, connections);
  await drained(target.url);
  const cpuBefore = pid === undefined ? null : procCpuMicros(pid);
  const result = await runLoad(target, seconds.measured, connections);
  await drained(target.url);
  const cpuAfter = pid === undefined ? null : procCpuMicros(pid);
  const cpu = cpuBefore === null || cpuAfter === null || result.requests === 0 ? {} : { cpuUsPerRequest: round((cpuAfter - cpuBefore) / result.requests, 1) };
  return { ...result, load1: machineLoad().load1, ...cpu };
}

interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const SKIPPED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function fetchCanned(server: RunningServer, scenario: Scenario, key: string): Promise<Canned> {
  const res = await fetch(`${server.url}${scenario.path}`, {
    method: scenario.method,
    headers: headersFor(key, scenario),
    ...(scenario.body !== undefined ? { body: scenario.body } : {}),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${scenario.name}: HTTP ${res.status}: ${body.slice(0, 300)}`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!SKIPPED_HEADERS.has(name)) headers[name] = value;
  });
  return { status: res.status, headers, body };
}

async function startCeiling(bodies: Record<string, Canned>, framework = false): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const dir = join(ROOT, '.tmp', 'bench-ceiling');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const port = await freePort();
  const args = ['--import', 'tsx', join(ROOT, 'bench', 'bare-server.ts'), file, String(port), ...(framework ? ['fastify'] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  if (!chunk.toString().includes('ready')) throw new Error('ceiling server did not start');
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface HttpRow {
  scenario: string;
  kind: Scenario['kind'];
  bodyBytes: number;
  server: Measured;
  ceiling: Measured;
  /** Service requests per second over the ceiling's. */
  ratio: number;
  /** The same body from a bare Fastify app: the framework's floor, for where the gap is (null when left out). */
  fastify: Measured | null;
}

export interface ReadPathOptions {
  seconds: { warmup: number; measured: number };
  connections: number;
  /** Measure the bare Fastify app too (default true). */
  fastify?: boolean;
  /** Only the scenarios of these kinds (default all). */
  kinds?: readonly Scenario['kind'][];
}

/**
 * Every read-path scenario against the service and the ceiling, one after the other. The
 * stock is a KR stock from the top of the rankings: it has a score, a band and a full history.
 */
export async function readPaths(server: RunningServer, key: string, fallbackCode: string, label: string, options: ReadPathOptions): Promise<HttpRow[]> {
  const top = (await (await fetch(`${server.url}${REST}/rankings?limit=1`, { headers: headersFor(key, { method: 'GET' }) })).json()) as { rows: { ticker: string }[] };
  const code = top.rows[0]?.ticker ?? fallbackCode;
  const list = scenarios(code).filter((s) => options.kinds === undefined || options.kinds.includes(s.kind));
  const bodies: Record<string, Canned> = {};
  for (const [i, s] of list.entries()) bodies[`/ceiling/${i}`] = await fetchCanned(server, s, key);
  const withFastify = options.fastify ?? true;
  const ceiling = await startCeiling(bodies);
  const fastify = withFastify ? await startCeiling(bodies, true) : null;
  const rows: HttpRow[] = [];
  try {
    for (const [i, s] of list.entries()) {
      log(`${label}: ${s.name}`);
      const headers = headersFor(key, s);
      const body = s.body !== undefined ? { body: s.body } : {};
      const real = await measure({ url: `${server.url}${s.path}`, method: s.method, headers, ...body }, options.seconds, options.connections, server.pid);
      const bare = await measure({ url: `${ceiling.url}/ceiling/${i}`, method: s.method, headers, ...body }, options.seconds, options.connections, ceiling.pid);
      const framework = fastify === null ? null : await measure({ url: `${fastify.url}/ceiling/${i}`, method: s.method, headers, ...body }, options.seconds, options.connections);
      rows.push({
        scenario: s.name,
        kind: s.kind,
        bodyBytes: Buffer.byteLength((bodies[`/ceiling/${i}`] as Canned).body),
        server: real,
        ceiling: bare,
        ratio: round(real.requestsPerSecond / bare.requestsPerSecond, 2),
        fastify: framework,
      });
    }
  } finally {
    await ceiling.stop();
    await fastify?.stop();
  }
  return rows;
}
