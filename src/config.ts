// Configuration from the environment, read once at start. Every variable is listed in the
// README's configuration table. Secrets (upstream API keys) are read by the source adapters
// from the same environment and never logged.

import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { PlanTable } from './access/access.js';
import { publicOrigin as publicOriginOf } from './oauth/metadata.js';
import { DEFAULT_RESERVE } from './refresh/dividends.js';

const int = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

const schema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: int(8080).pipe(z.number().max(65_535, { error: 'must be a port number (0 to 65535)' })),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.union([z.literal(''), z.string().regex(/^postgres(ql)?:\/\/\S+$/, { error: 'must be a postgres:// or postgresql:// URL' })]).optional(),
  REDIS_URL: z.union([z.literal(''), z.string().regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' })]).optional(),
  /** Namespace of this deployment's keys in Redis. */
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]{1,40}$/).default('svc'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FREE_DAILY_QUOTA: int(1_000),
  PAID_DAILY_QUOTA: int(100_000),
  FREE_BURST_PER_SECOND: int(10),
  PAID_BURST_PER_SECOND: int(100),
  /**
   * Server secret the stored API key hashes are keyed with (HMAC-SHA256; src/access/keys.ts),
   * at least 16 characters; unset or empty: plain SHA-256. Set on a store with plain hashes, the
   * next start peppers them in place (docs/security.md).
   */
  KEY_PEPPER: z.union([z.literal(''), z.string().min(16, { error: 'must be at least 16 characters' })]).optional(),
  /**
   * The service's public origin (`https://stocks.example.com`), or several, comma-separated: the
   * first is the OAuth issuer and the MCP resource's origin in the discovery documents (required
   * with OAUTH=on). Set, a request's Host must be one of theirs or loopback (src/http/host.ts).
   */
  PUBLIC_URL: z.string().optional(),
  /** The OAuth 2.1 authorization server for hosted assistants' connectors (docs/oauth.md). */
  OAUTH: z.enum(['on', 'off']).default('off'),
  /** Tests only: client ID metadata documents may be served over http from loopback. */
  OAUTH_LOOPBACK_CLIENT_DOCUMENTS: z.enum(['on', 'off']).default('off'),
  /** Comma-separated browser origins allowed at the MCP endpoint, besides loopback origins. */
  ALLOWED_ORIGINS: z.string().default(''),
  /** Largest accepted request body (MCP), bytes. */
  BODY_LIMIT_BYTES: int(262_144),
  /** A request (headers and body) must arrive whole within this many ms (slow clients). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (the failed-authentication
   * limit is per address): empty (default) for none, the direct peer is the client; or
   * comma-separated addresses or CIDR ranges of the proxies (`loopback`, `uniquelocal` name
   * ranges too). `true` believes any sender and is only right behind a proxy that overwrites
   * the header.
   */
  TRUST_PROXY: z.string().default(''),
  /** Failed authentications one client address may have per minute; the next ones get 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** A failed authentication (401, or 429 for an address over its failures) is answered after this many ms (0: at once). */
  AUTH_FAILURE_DELAY_MS: int(1_000),
  /** Open connections the server accepts at once; past it a new connection is closed at once (0: no cap). */
  MAX_CONNECTIONS: int(1_024),
  /**
   * Open connections one peer address (the socket's, not X-Forwarded-For) may hold at once; past
   * it its new connection is closed at once. A trusted proxy (TRUST_PROXY) is not capped (0: no cap).
   */
  MAX_CONNECTIONS_PER_ADDRESS: int(256),
  /** Failed authentications of one client address answered late at once (of the 1,000 of all); past it answered at once (0: no cap). */
  MAX_WAITING_REFUSALS_PER_ADDRESS: int(100),
  /** A request's headers must arrive whole within this many ms (slow headers; at most REQUEST_TIMEOUT_MS). */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Most members in one JSON-RPC batch. */
  MAX_BATCH: int(50),
  /** Demo universe size on first start: default or full. */
  DEMO_SIZE: z.enum(['default', 'full']).default('default'),
  /** Multiplies the demo company counts (tests use a small universe, benchmarks 2x and 4x). */
  DEMO_SCALE: z.coerce.number().positive().max(16).default(1),
  /**
   * Threads reading one stock's bars for uncached price histories and bands (SQLite only; 0:
   * on the serving thread). Default: one fewer than the cores, at least 1, at most 4.
   */
  SERIES_READERS: z.coerce.number().int().min(0).max(16).default(Math.min(4, Math.max(1, availableParallelism() - 1))),
  /**
   * How far V8 lets the JavaScript heap grow past what its last full collection kept before the
   * next one, in percent (`serve` only; 0: V8's own choice, up to 300% more). src/runtime/heap.ts,
   * docs/deploy.md ("JavaScript heap growth").
   */
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(300).default(60),
  /** Turn the hourly refresh off (tests, or an instance that only serves). */
  /** Past days whose computed universe is kept for as-of answers (src/serving/as-of.ts). */
  AS_OF_CACHE_DAYS: z.coerce.number().int().min(1).max(366).default(12),
  REFRESH_SCHEDULE: z.enum(['hourly', 'off']).default('hourly'),
  /** The refresh schedule as a cron expression in Asia/Seoul (a seconds field is allowed). */
  REFRESH_CRON: z.string().default('0 * * * *'),
  /** Where the bulk files (OpenDART's quarterly ZIPs, SEC's archives) are downloaded; default DATA_DIR/bulk. */
  BULK_DIR: z.string().optional(),
  /** A first start with real sources on an empty store loads history from the bulk files (`off`: one API refresh instead). */
  BULK_ON_FIRST_START: z.enum(['on', 'off']).default('on'),
  /** While a bulk import runs, a new dataset version is published at most this often (seconds). */
  BULK_PUBLISH_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Calls of OpenDART's daily allowance the dividend backfill leaves for the hourly refreshes. */
  DART_BACKFILL_RESERVE: int(DEFAULT_RESERVE),
});

export type Config = z.infer<typeof schema> & { plans: PlanTable; allowedOrigins: string[]; trustProxy: TrustProxy; publicOrigin: string | null; publicOrigins: string[] };

/** Fastify's `trustProxy`: off, every sender, or the proxies' addresses and ranges. */
export type TrustProxy = boolean | string[];

/** TRUST_PROXY as Fastify takes it (see the schema). */
export function trustProxyOf(text: string): TrustProxy {
  const value = text.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  return value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

/**
 * A configuration the process cannot run with (a variable out of range, a bad URL, a KEY_PEPPER
 * that is not the stored keys'): the CLI prints its message as one line on stderr and exits 1,
 * without a stack (src/cli/main.ts).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${String(issue?.path[0] ?? '?')}: ${issue?.message ?? 'invalid'}`);
  }
  const c = parsed.data;
  let publicOrigins: string[];
  try {
    publicOrigins = (c.PUBLIC_URL ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean)
      .map(publicOriginOf);
  } catch (err) {
    throw new ConfigError(`invalid configuration: PUBLIC_URL: ${(err as Error).message}`);
  }
  const publicOrigin = publicOrigins[0] ?? null;
  if (c.OAUTH === 'on' && publicOrigin === null) throw new ConfigError('invalid configuration: PUBLIC_URL: required with OAUTH=on (the issuer and resource origin)');
  return {
    publicOrigin,
    publicOrigins,
    ...c,
    plans: {
      free: { daily: c.FREE_DAILY_QUOTA, burst: c.FREE_BURST_PER_SECOND },
      paid: { daily: c.PAID_DAILY_QUOTA, burst: c.PAID_BURST_PER_SECOND },
    },
    trustProxy: trustProxyOf(c.TRUST_PROXY),
    allowedOrigins: c.ALLOWED_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  };
}
