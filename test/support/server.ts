// Starts the real service (SQLite in a temp dir, a small deterministic demo universe, port 0)
// for HTTP and MCP tests, with an injectable clock and the log lines captured in memory.

import { Writable } from 'node:stream';
import pino from 'pino';
import { startApp, createKey, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { randomBytes } from 'node:crypto';
import { freshSchema, TEST_REDIS_URL } from './pg.js';
import { tempDir } from './tmp.js';

// `postgres` runs the same suites on PostgreSQL + Redis (the *.pg.test.ts files set it).
export const BACKEND = process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

export const TEST_AS_OF = '2026-11-20';

export interface TestServer {
  app: App;
  url: string;
  /** Every log line written so far, raw JSON text. */
  logs: string[];
  /** The clock the service reads; tests may move it. */
  clock: { now: Date };
  newKey(plan?: 'free' | 'paid'): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
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
  });
  await app.ready;
  return {
    app,
    url: app.url,
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

export async function get(url: string, key: string | null, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const res = await fetch(url, { headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers } });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}
