// Starts the real service (SQLite in a temp dir, a small deterministic demo universe) for HTTP
// and MCP tests, with an injectable clock and the log lines captured in memory: listening on a
// loopback port (startTestServer, the full tier's real HTTP), or built without a socket and
// reached through Fastify's inject() (startTestApp, the unit tier's door tests).

import { Writable } from 'node:stream';
import pino from 'pino';
import { startApp, createKey, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { randomBytes } from 'node:crypto';
import { freshSchema, TEST_REDIS_URL } from './pg.js';
import { INJECT_ORIGIN, injectFetch } from './inject.js';
import { tempDir } from './tmp.js';

// `postgres` runs the same suites on PostgreSQL + Redis (the *.pg.test.ts files set it).
export const BACKEND = process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

export const TEST_AS_OF = '2026-11-20';

export interface Reply {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; null when it is empty or not JSON. */
  body: unknown;
  text: string;
}

export interface TestServer {
  app: App;
  /** The base URL of the doors: the loopback address, or INJECT_ORIGIN for startTestApp. */
  url: string;
  /** fetch() to this service: over the socket, or through inject() for startTestApp. */
  fetch: typeof fetch;
  /** GET `url` (under `this.url`) with `key` as bearer token, through `this.fetch`. */
  get(url: string, key: string | null, headers?: Record<string, string>): Promise<Reply>;
  /** Every log line written so far, raw JSON text. */
  logs: string[];
  /** The clock the service reads; tests may move it. */
  clock: { now: Date };
  newKey(plan?: 'free' | 'paid'): Promise<string>;
  close(): Promise<void>;
}

/** The service listening on a loopback port (port 0): real HTTP requests. */
export function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  return start(env, true);
}

/** The service without a socket: requests go through Fastify's inject(). */
export function startTestApp(env: Record<string, string> = {}): Promise<TestServer> {
  return start(env, false);
}

async function start(env: Record<string, string>, listen: boolean): Promise<TestServer> {
  const tmp = tempDir();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const clock = { now: new Date(`${TEST_AS_OF}T03:00:00.000Z`) }; // 12:00 in Seoul
  let dropSchema = async (): Promise<void> => undefined;
  const backendEnv: Record<string, string> = {};
  if (BACKEND === 'postgres') {
    const schema = await freshSchema();
    dropSchema = schema.drop;
    backendEnv.DATABASE_URL = schema.url;
    if (TEST_REDIS_URL) {
      backendEnv.REDIS_URL = TEST_REDIS_URL;
      backendEnv.REDIS_KEY_PREFIX = `t${randomBytes(6).toString('hex')}`;
    }
  }
  const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', PAID_BURST_PER_SECOND: '100000', AUTH_FAILURES_PER_MINUTE: '100000', AUTH_FAILURE_DELAY_MS: '0', ...backendEnv, ...env });
  const app = await startApp(config, {
    clock: () => clock.now,
    logger: pino({ level: 'info' }, sink),
    demo: { scale: 0.1, asOf: TEST_AS_OF },
    listen,
  });
  await app.ready;
  const doorFetch = listen ? fetch : injectFetch(app.server);
  return {
    app,
    url: listen ? app.url : INJECT_ORIGIN,
    fetch: doorFetch,
    get: (url, key, headers) => getWith(doorFetch, url, key, headers),
    logs,
    clock,
    newKey: (plan = 'paid') => createKey(app.store.access, plan, 'test', () => clock.now),
    async close() {
      await app.close();
      await dropSchema();
      tmp.cleanup();
    },
  };
}

/** GET `url` over real HTTP with `key` as bearer token (startTestServer, a child process). */
export function get(url: string, key: string | null, headers: Record<string, string> = {}): Promise<Reply> {
  return getWith(fetch, url, key, headers);
}

/** GET `url` through `fetchImpl` (e.g. injectFetch(server)) with `key` as bearer token. */
export async function getWith(fetchImpl: typeof fetch, url: string, key: string | null, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetchImpl(url, { headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers } });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}
