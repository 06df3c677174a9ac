// `npm run bench -- first-start`: a full-scale rehearsal of a first real start. A loopback
// replica of every upstream (bench/replica: ~2,700 KR and ~6,000 US listed companies, ten
// years, re-keyed copies of the real recorded answers and bulk rows) enforces each source's
// documented rate limits and daily allowances on a simulated clock on which waiting costs no
// real time (docs/performance.md, "First start at full scale"). The service runs in this
// process (startApp, a fresh DATA_DIR, every adapter's base URL on the replica) and its first
// start is measured: per source calls, bytes, time on the simulated clock and real time; the
// process's CPU, peak RSS and disk; the recompute; the coverage at the end (listed stocks of
// each market with a score, and the service's own report per market and metric: health's
// `coverage.metrics`, printed as the README's table). Results in bench/first-start.json.
//
//   BENCH_SCALE=1          share of the real universe (0.02: ~54 KR, ~120 US; under a minute)
//   BENCH_FIRST_START=bulk the service's first start from the bulk files, what `serve` does when
//                          sources are configured (default); `api`: one API refresh, the first
//                          start without the bulk files (the comparison)
//   BENCH_BULK=1           generate and serve the bulk files (DART quarterly ZIPs, SEC archives)
//   BENCH_BACKFILL=1       then ten years of KR statements by the API path (DART backfills);
//                          default on with BENCH_FIRST_START=api, off with bulk
//   BENCH_FLOWS=kis       the KR investor flows from the brokerage open API (KIS, default) or
//                          `krx` from the KRX Data Marketplace (member sign-in; its terms forbid
//                          automated collection, so it is never the default)
//   BENCH_KRX_COOKIE=1     also sign in to the replica's KRX by hand and pass KRX_COOKIE (the
//                          fallback); by default the service signs in with KRX_ID / KRX_PASSWORD
//   BENCH_KR_PRICES=krx-openapi  KR prices from the KRX Open API (KRX_OPENAPI_KEY) instead of
//                          FSC (default fsc; Korea Customs stays on data.go.kr either way)
//   BENCH_SOURCES=kr       the KR sources alone (the flows, the KR prices, OpenDART, ECOS);
//                          default `all`
//   BENCH_CACHE_DIR=...    where the generated bulk files are kept between runs
//   BENCH_LOG_LEVEL=info   the service's log level (its log goes to a file in the run's folder)
//   BENCH_START_AT=...     the simulated clock's start (ISO instant; default now)
//   BENCH_KEEP=1           keep the run's DATA_DIR (printed) instead of removing it

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import pino from 'pino';
import { createKey, startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { setPacingTimer } from '../src/sources/http.js';
import { configuredSources } from '../src/sources/index.js';
import { Refresher } from '../src/refresh/pipeline.js';
import { bulkPlan } from '../src/refresh/bulk-sources.js';
import { POLYGON_PLANS } from '../src/sources/polygon/source.js';
import type { SourceProgress } from '../src/refresh/progress.js';
import { BAND_KEYS } from '../src/domain/results.js';
import { applicableOf, coverageMetricTable, METRIC_TARGET, type CoverageReport, type MetricCoverage } from '../src/serving/coverage.js';
import { log, machineLoad, procStatusBytes, round } from './lib/util.js';
import { printTable } from './lib/table.js';
import { WarpClock } from './replica/clock.js';
import { filingsThrough } from './replica/api.js';
import { prepareBulk, type BulkSummary } from './replica/bulk.js';
import { KRX_MEMBER, PREFIX, SENT_AT_HEADER, seoulDate, startReplica, type Replica, type SourceStats } from './replica/server.js';
import type { ReplicaSource } from './replica/limits.js';
import { DOCUMENTED_LIMITS } from './replica/limits.js';
import { KIS_APP } from './replica/kis.js';

const ROOT = new URL('..', import.meta.url).pathname;
/** The refresh pipeline's default per-source timeout (RefresherOptions.sourceTimeoutMs). */
const SOURCE_TIMEOUT_MS = 10 * 60_000;

export interface FirstStartSettings {
  scale: number;
  bulk: boolean;
  cacheDir: string;
  logLevel: string;
  keep: boolean;
  /** Where results are written (null: nowhere). */
  resultsFile: string | null;
  /**
   * After the first start, load ten years of KR statements the way today's service can: DART-only
   * backfills of three months each (list.json, then fnlttSinglAcntAll per filing), the next
   * Seoul day after a run that hit the daily allowance (status 020).
   */
  backfill: boolean;
  /** Where the KR investor flows come from: the KIS open API (`kis`, default) or the KRX marketplace (`krx`). */
  flows?: 'kis' | 'krx';
  /** Also sign in to the replica's KRX as an operator would in a browser and pass the session as KRX_COOKIE (the fallback without KRX_ID / KRX_PASSWORD). */
  krxCookie: boolean;
  /** The simulated clock's start (ISO instant); now when absent. */
  startAt?: string;
  /** Where KR prices come from: FSC on data.go.kr (default) or the KRX Open API instead. */
  krPrices?: 'fsc' | 'krx-openapi';
  /** Which sources run: `all` (default) or `kr`, the KR ones alone (the flows, the KR prices, OpenDART, ECOS). */
  only?: 'all' | 'kr';
  /**
   * `bulk` (default): the first start downloads and imports the bulk files (src/refresh/first-start.ts)
   * beside the API sources, and everything is read after `app.loaded`; `api`: one API refresh.
   */
  firstStart?: 'api' | 'bulk';
  /** Overrides of the replica's limits (tests only). */
  limits?: Parameters<typeof startReplica>[0]['limits'];
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): FirstStartSettings {
  const scale = Number(env.BENCH_SCALE ?? 1);
  const firstStart = env.BENCH_FIRST_START === 'api' ? 'api' : 'bulk';
  if (env.BENCH_FIRST_START !== undefined && env.BENCH_FIRST_START !== firstStart) throw new Error(`BENCH_FIRST_START must be bulk or api, got ${env.BENCH_FIRST_START}`);
  const flows = env.BENCH_FLOWS === 'krx' ? 'krx' : 'kis';
  if (env.BENCH_FLOWS !== undefined && env.BENCH_FLOWS !== flows) throw new Error(`BENCH_FLOWS must be kis or krx, got ${env.BENCH_FLOWS}`);
  if (!(scale > 0 && scale <= 1)) throw new Error(`BENCH_SCALE must be in (0, 1], got ${env.BENCH_SCALE}`);
  const krPrices = env.BENCH_KR_PRICES === 'krx-openapi' ? 'krx-openapi' : 'fsc';
  if (env.BENCH_KR_PRICES !== undefined && env.BENCH_KR_PRICES !== krPrices) throw new Error(`BENCH_KR_PRICES must be fsc or krx-openapi, got ${env.BENCH_KR_PRICES}`);
  const only = env.BENCH_SOURCES === 'kr' ? 'kr' : 'all';
  if (env.BENCH_SOURCES !== undefined && env.BENCH_SOURCES !== only) throw new Error(`BENCH_SOURCES must be all or kr, got ${env.BENCH_SOURCES}`);
  return {
    scale,
    only,
    bulk: env.BENCH_BULK !== '0',
    backfill: env.BENCH_BACKFILL === undefined ? firstStart === 'api' : env.BENCH_BACKFILL !== '0',
    krxCookie: env.BENCH_KRX_COOKIE === '1',
    flows,
    cacheDir: env.BENCH_CACHE_DIR ?? join(ROOT, 'bench', '.data', `replica-${scale}`),
    logLevel: env.BENCH_LOG_LEVEL ?? 'info',
    keep: env.BENCH_KEEP === '1',
    resultsFile: join(ROOT, 'bench', 'first-start.json'),
    ...(env.BENCH_START_AT ? { startAt: env.BENCH_START_AT } : {}),
    firstStart,
    krPrices,
  };
}

/** Per source, as the service's side saw it (its fetch calls to the replica's prefix). */
export interface SourceRow {
  source: ReplicaSource | 'other';
  calls: number;
  bytes: number;
  refusedRate: number;
  refusedDay: number;
  loggedOut: number;
  unanswered: number;
  /** First to last call on the simulated clock (ms): what a real start would take for this source. */
  simulatedSpanMs: number;
  /** The same span in real time. */
  realSpanMs: number;
  /** The simulated span less the real one: the pacing waits the simulated clock skipped while this source ran (shared with sources running beside it). */
  waitedMs: number;
  /**
   * The simulated span exceeds the pipeline's per-source timeout (10 minutes, on real time):
   * a real start abandons this source, though the rehearsal (where waiting costs no real time) does not.
   */
  overSourceTimeout: boolean;
  byKind: Record<string, number>;
}

/** A market line of the coverage report (health's `coverage.markets`, /readyz `markets`). */
export interface MarketLine {
  market: 'KR' | 'US';
  listed: number;
  priced: number;
  scored: number;
  complete: number;
}

export interface FirstStartResult {
  firstStart: 'api' | 'bulk';
  meta: { startedAt: string; node: string; cpus: number; scale: number; load: ReturnType<typeof machineLoad> };
  universe: { kr: number; krKospi: number; krKosdaq: number; us: number; krUnlistedFilers: number };
  bulk: BulkSummary | null;
  service: {
    /** startApp to the first dataset served (`app.ready`), real time and on the simulated clock. */
    firstDataset: { realMs: number; simulatedMs: number };
    /** startApp to the whole first start loaded (`app.loaded` on the bulk path; the first refresh on the API path), real time. */
    readyRealMs: number;
    /** The same on the simulated clock (real time plus every wait skipped). */
    readySimulatedMs: number;
    /** Waiting skipped by the simulated clock. */
    waitedMs: number;
    /** CPU of this process (service and replica together) during the start, and the replica's share estimate excluded. */
    cpuMs: number;
    peakRssBytes: number | null;
    /** DATA_DIR at the end: the store and the downloaded bulk files. */
    diskBytes: number;
    /** Of which the downloaded bulk files (DATA_DIR/bulk). */
    bulkDiskBytes: number;
    /** Datasets published (`dataset swapped`) during the first start. */
    swaps: number;
    recompute: { loadMs: number | null; computeMs: number | null; maxStallMs: number | null; securities: number | null };
    sources: { source: string; ok: boolean; error?: string; records?: number }[];
  };
  perSource: SourceRow[];
  coverage: { market: 'KR' | 'US'; listed: number; scored: number; pct: number }[];
  /**
   * KR stocks with a score as the start went, sampled every two seconds of real time (rankings'
   * totalCount over the listed copies): the last sample within the first simulated hour (what was
   * served at least by then) and the first sample at 95 % or more (when it was reached at latest).
   */
  krFirstHour: { atHour: { minutes: number; scored: number; pct: number } | null; reached95AtMinutes: number | null; samples: { minutes: number; scored: number }[] };
  /** The service's own coverage report at the end: health's `coverage.markets` and /readyz `markets` (listed = what the store lists). */
  served: { health: MarketLine[]; readyz: MarketLine[]; readyzStatus: string | null; unscored: Record<string, Record<string, number>> };
  /**
   * The service's coverage per market and metric at the end (health's `coverage.metrics`), the
   * share of each market's listings served with a price, and the percentile metrics below the
   * target (a value for 90 % of the stocks each applies to).
   */
  metricCoverage: {
    /** Health's `coverage.metrics`, over the securities the store lists. */
    metrics: MetricCoverage[];
    /**
     * The same over the replica's listings: a listing the store does not list (a filer the
     * import skipped, e.g. a foreign private issuer) counted without a value, as `other`.
     */
    overListings: MetricCoverage[];
    /** Per market: the replica's listings, those the store lists, those served with a price, and priced / listings in percent. */
    servedShare: { market: 'KR' | 'US'; listings: number; listed: number; priced: number; pct: number }[];
    belowTarget: string[];
  };
  /** Every source's progress board entry at the end (`app.progress.snapshot()`). */
  progress: ProgressSummary[];
  /** US price history still to come (Polygon's walk over its history window): from the board. */
  priceHistory: {
    phase: string;
    done: number;
    total: number | null;
    etaSeconds: number | null;
    /** The board's last entry while Polygon's run was going (its own ETA), before the run's end marked it done. */
    lastRunning: { phase: string; done: number; total: number | null; etaSeconds: number | null; note: string | null } | null;
    remainingDays: number | null;
    remainingSecondsAtPlanRate: number | null;
  } | null;
  /** What the API path needs for ten years, from the replica's filing calendar and today's adapters. */
  today: { dartFilingsTenYears: number; dartCallsTenYears: number; dartDaysAtAllowance: number; secCallsAllCompanies: number; secHoursAtRate: number; polygonDaysOfHistoryPerHourAtRate: number; note: string };
  /** Ten years of KR statements by today's API path, measured (null: not run). */
  backfill: BackfillResult | null;
  /**
   * The dividend backfill after the bulk first start (src/refresh/dividends.ts), its first pass
   * (the day's allowance less the reserve), measured from `app.loaded`; null on the API path.
   */
  dividends: DividendsResult | null;
  unanswered: string[];
}

export interface DividendsResult {
  status: string;
  /** alotMatter.json calls, as the service counted them and as the replica saw them after `loaded`. */
  calls: number;
  replicaCalls: number;
  figures: number;
  noData: number;
  /** Filings written with their dividend. */
  written: number;
  /** Periods left for the next days. */
  left: number;
  realMs: number;
  simulatedMs: number;
}

export interface ProgressSummary {
  source: string;
  phase: string;
  unit: string;
  done: number;
  total: number | null;
  callsToday: number;
  etaSeconds: number | null;
  nextTryAt: string | null;
  note: string | null;
}

export interface BackfillResult {
  windows: number;
  runs: number;
  /** Runs that failed on the daily allowance (their calls are lost: a failed source keeps nothing). */
  runsRefused: number;
  /** Windows whose DART run failed for another reason (error kept). */
  failed: { from: string; to: string; error: string }[];
  dartCalls: number;
  dartRefusedDay: number;
  simulatedMs: number;
  realMs: number;
  coverage: FirstStartResult['coverage'];
}

/** Three-month windows [from, to] from 2016-01-01 through `today` (ISO dates). */
export function quarterWindows(today: string): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  for (let y = 2016; y <= Number(today.slice(0, 4)); y++) {
    for (const [a, b] of [['01-01', '03-31'], ['04-01', '06-30'], ['07-01', '09-30'], ['10-01', '12-31']] as const) {
      const from = `${y}-${a}`;
      if (from > today) break;
      const to = `${y}-${b}`;
      out.push({ from, to: to < today ? to : today });
    }
  }
  return out;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

const SOURCE_OF_PREFIX: [string, ReplicaSource][] = [
  [PREFIX.dart + '/disclosureinfo', 'opendart-bulk'],
  [PREFIX.dart + '/cmm', 'opendart-bulk'],
  [PREFIX.dart, 'opendart'],
  [PREFIX.secWww + '/Archives/edgar/daily-index/xbrl', 'sec-bulk'],
  [PREFIX.secWww + '/Archives/edgar/daily-index/bulkdata', 'sec-bulk'],
  [PREFIX.secWww, 'sec'],
  [PREFIX.secData, 'sec'],
  [PREFIX.fsc, 'fsc'],
  [PREFIX.polygon, 'polygon'],
  [PREFIX.ecos, 'ecos'],
  [PREFIX.ecb, 'ecb'],
  [PREFIX.customs, 'customs'],
  // Before '/krx', which it starts with.
  [PREFIX.krxOpenApi, 'krx-openapi'],
  [PREFIX.krx, 'krx'],
  [PREFIX.kis, 'kis'],
];

/**
 * Counts the service's calls to the replica and holds the simulated clock while one is in
 * flight (a wait is skipped only when nothing is being transferred).
 */
function meterFetch(replica: Replica, clock: WarpClock): { restore: () => void; spans: Map<string, { firstReal: number; lastReal: number; firstSim: number; lastSim: number; calls: number; bytes: number }> } {
  const original = globalThis.fetch;
  const spans = new Map<string, { firstReal: number; lastReal: number; firstSim: number; lastSim: number; calls: number; bytes: number }>();
  const wrapped: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(replica.base)) return original(input, init);
    const path = url.slice(replica.base.length);
    const source = SOURCE_OF_PREFIX.find(([p]) => path.startsWith(p))?.[1] ?? 'other';
    let span = spans.get(source);
    if (!span) spans.set(source, (span = { firstReal: performance.now(), lastReal: 0, firstSim: clock.now(), lastSim: 0, calls: 0, bytes: 0 }));
    span.calls++;
    const done = clock.busy();
    const s = span;
    const finish = (n: number): void => {
      s.bytes += n;
      s.lastReal = performance.now();
      s.lastSim = clock.now();
      done();
    };
    try {
      // The replica judges rates at the instant the service sent the call (its event loop,
      // shared with the service, may take the request up later).
      const headers = new Headers(init?.headers);
      headers.set(SENT_AT_HEADER, String(clock.now()));
      const res = await original(input, { ...init, headers });
      if (res.body === null) {
        finish(0);
        return res;
      }
      // The body passes through a counter: the call ends when its last byte is read.
      let n = 0;
      const counter = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          n += chunk.byteLength;
          controller.enqueue(chunk);
        },
        flush() {
          finish(n);
        },
      });
      // A body that fails or is cancelled midway ends the call too.
      res.body.pipeTo(counter.writable).catch(() => finish(n));
      return new Response(counter.readable, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      finish(0);
      throw err;
    }
  };
  globalThis.fetch = wrapped;
  return { restore: () => (globalThis.fetch = original), spans };
}

/** The rehearsal: replica up, service started on an empty DATA_DIR, measured until its first dataset is served. */
export async function rehearse(settings: FirstStartSettings): Promise<FirstStartResult> {
  const startedAt = new Date();
  const clock = new WarpClock(settings.startAt === undefined ? undefined : Date.parse(settings.startAt));
  const restoreTimer = setPacingTimer(clock);
  const runDir = join(settings.cacheDir, '..', `first-start-${process.pid}-${Date.now()}`);
  mkdirSync(runDir, { recursive: true });
  let replica: Replica | null = null;
  let metered: ReturnType<typeof meterFetch> | null = null;
  let app: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    const today = seoulDate(clock.now());
    const firstStart = settings.firstStart ?? 'bulk';
    // The universe is built once here for the bulk files and again (identically) by the replica.
    let bulkSummary: BulkSummary | null = null;
    const replicaOptions: Parameters<typeof startReplica>[0] = { scale: settings.scale, now: () => clock.now(), ...(settings.limits ? { limits: settings.limits } : {}) };
    if (settings.bulk) {
      const { buildUniverse } = await import('./replica/universe.js');
      log(`bulk files for scale ${settings.scale} in ${settings.cacheDir}`);
      const bulk = prepareBulk(buildUniverse(settings.scale), today, settings.cacheDir, log);
      bulkSummary = bulk.summary;
      replicaOptions.bulk = bulk;
      log(`bulk files ${bulk.summary.cached ? 'reused' : `generated in ${round(bulk.summary.generationMs / 1000, 1)} s`}`);
    }
    replica = await startReplica(replicaOptions);
    const u = replica.universe;
    log(`replica at ${replica.base}: ${u.kr.length} KR (+${u.krUnlisted} unlisted filers), ${u.us.length} US companies`);
    const dataDir = join(runDir, 'data');
    mkdirSync(dataDir, { recursive: true });
    const env: Record<string, string> = {
      ...replica.env,
      DART_API_KEY: 'replica0000000000000000000000000000000000',
      DATA_GO_KR_API_KEY: 'replicaDataGoKrKey',
      ...(settings.only === 'kr' ? {} : { US_PRICES_API_KEY: 'replicaPolygonKey', SEC_USER_AGENT: 'first-start rehearsal bench@example.com' }),
      ECOS_API_KEY: 'replicaEcosKey',
      // The KR investor flows: the KIS app the replica knows (its token kept in DATA_DIR/kis), or
      // the KRX member account the replica accepts (the adapter signs in and renews the session
      // itself, its terms acknowledged), optionally with a session cookie signed in for by hand.
      ...((settings.flows ?? 'kis') === 'kis'
        ? { KIS_APP_KEY: KIS_APP.key, KIS_APP_SECRET: KIS_APP.secret, DATA_DIR: dataDir }
        : {
            KRX_ID: KRX_MEMBER.id,
            KRX_PASSWORD: KRX_MEMBER.password,
            KRX_MARKETPLACE_ACCEPT_TERMS: 'yes',
            ...(settings.krxCookie ? { KRX_COOKIE: await krxSignIn(replica.env['KRX_BASE_URL'] as string) } : {}),
          }),
      ...(settings.krPrices === 'krx-openapi' ? { KRX_OPENAPI_KEY: 'replicaKrxOpenApiKey' } : {}),
    };
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', LOG_LEVEL: settings.logLevel, PAID_BURST_PER_SECOND: '100000', ...env });
    const logFile = join(runDir, 'service.log');
    const logger = pino({ level: settings.logLevel, base: { service: 'stock-data' } }, pino.destination({ dest: logFile, sync: true }));
    metered = meterFetch(replica, clock);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const sim0 = clock.now();
    const skipped0 = clock.skippedMs;
    // With the KRX Open API for KR prices, FSC (enabled by the data.go.kr key Customs shares) is left out.
    // With BENCH_SOURCES=kr, the KR sources alone: the flows, the KR prices, OpenDART and ECOS.
    const krOnly = new Set(['opendart', 'fsc', 'krx-openapi', 'kis', 'krx', 'ecos']);
    const sources = configuredSources(env)
      .filter((s) => settings.krPrices !== 'krx-openapi' || s.name !== 'fsc')
      .filter((s) => settings.only !== 'kr' || krOnly.has(s.name));
    const bulk = firstStart === 'bulk' ? { bulk: bulkPlan({ dir: join(dataDir, 'bulk'), download: true, asOf: today, sources, env }) } : {};
    app = await startApp(config, { clock: () => new Date(clock.now()), logger, sources, ...bulk });
    // The board marks a source `done` when its run is stored, also when a walk stopped with units
    // left for the next run: the last entry seen while it ran keeps the walk's own ETA.
    const lastRunning = new Map<string, SourceProgress>();
    const started = app;
    const sample = (): void => {
      for (const p of started.progress.snapshot()) if (p.phase !== 'done' && p.phase !== 'failed') lastRunning.set(p.source, p);
    };
    const sampler = setInterval(sample, 250);
    // KR coverage on the simulated clock while the start goes (the first hour's figure).
    const sampleKey = await createKey(app.store.access, 'paid', 'rehearsal coverage', () => new Date(clock.now()));
    const krSamples: { minutes: number; scored: number }[] = [];
    let sampling = false;
    const sampleKr = async (): Promise<void> => {
      if (sampling) return;
      sampling = true;
      const minutes = (clock.now() - sim0) / 60_000;
      try {
        const res = await fetch(`${started.url}/api/public/v2/rankings?market=KR&limit=1&bands=${BAND_KEYS.join(',')}`, { headers: { authorization: `Bearer ${sampleKey}` } });
        const body = (await res.json()) as Record<string, unknown>;
        krSamples.push({ minutes: round(minutes, 1), scored: typeof body['totalCount'] === 'number' ? body['totalCount'] : 0 });
      } catch {
        krSamples.push({ minutes: round(minutes, 1), scored: 0 });
      } finally {
        sampling = false;
      }
    };
    const krSampler = setInterval(() => void sampleKr(), 2_000);
    await app.ready;
    const firstDataset = { realMs: performance.now() - t0, simulatedMs: clock.now() - sim0 };
    log(`first dataset served after ${round(firstDataset.realMs / 1000, 1)} s real, ${round(firstDataset.simulatedMs / 60_000, 1)} min simulated`);
    if (firstStart === 'bulk') {
      await app.loaded;
      log(`bulk first start loaded after ${round((performance.now() - t0) / 1000, 1)} s real: ${app.progress.snapshot().map((p) => `${p.source} ${p.phase}`).join(', ')}`);
    }
    const readyRealMs = performance.now() - t0;
    const readySimulatedMs = clock.now() - sim0;
    const cpu = process.cpuUsage(cpu0);
    const peakRssBytes = procStatusBytes('self', 'VmHWM');
    const waitedMs = clock.skippedMs - skipped0;
    // The per-source table is the first start's own: its calls before the dividend backfill's.
    const spansAtReady = new Map([...metered.spans].map(([k, v]) => [k, { ...v }]));
    const statsAtReady = JSON.parse(JSON.stringify(replica.stats)) as Replica['stats'];
    // The dividend backfill's first pass, which follows the bulk first start: its own time and calls.
    let dividends: DividendsResult | null = null;
    if (firstStart === 'bulk') {
      const d0 = performance.now();
      const ds0 = clock.now();
      const alot0 = replica.stats.opendart.byKind['alotMatter.json'] ?? 0;
      const pass = await app.dividends;
      if (pass) {
        dividends = {
          status: pass.status, calls: pass.calls, replicaCalls: (replica.stats.opendart.byKind['alotMatter.json'] ?? 0) - alot0, figures: pass.figures, noData: pass.noData,
          written: pass.written, left: pass.left, realMs: Math.round(performance.now() - d0), simulatedMs: Math.round(clock.now() - ds0),
        };
        // Its last version served before coverage is read (the service serves it when no recompute is under way, else on the poll).
        const version = await app.store.refresh.datasetVersion();
        if ((app.holder.current?.version ?? 0) < version) await app.publisher.publish(version);
        log(`dividend backfill: ${pass.status}, ${pass.calls} alotMatter calls, ${pass.written} filings written, ${pass.left} periods left, ${round(dividends.realMs / 1000, 1)} s real, ${round(dividends.simulatedMs / 60_000, 1)} min simulated`);
      }
    }
    clearInterval(sampler);
    clearInterval(krSampler);
    sample();
    await sampleKr();
    const progress = app.progress.snapshot();
    log(`first start loaded after ${round(readyRealMs / 1000, 1)} s real, ${round(readySimulatedMs / 3_600_000, 2)} h simulated`);

    const key = await createKey(app.store.access, 'paid', 'rehearsal', () => new Date(clock.now()));
    const get = async (path: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${app?.url}/api/public/v2${path}`, { headers: { authorization: `Bearer ${key}` } });
      return (await res.json()) as Record<string, unknown>;
    };
    const health = await get('/health');
    const coverage = await coverageOf(get, u);
    const readyz = (await (await fetch(`${app.url}/readyz`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status?: string; markets?: MarketLine[] };
    const healthCoverage = health['coverage'] as { markets?: MarketLine[]; tools?: { tool: string; market: string; nulls: Record<string, number> }[]; metrics?: MetricCoverage[] } | undefined;
    // The last swap before the end: the recompute over everything the first start loaded.
    const swaps = readLog(logFile).filter((l) => l['msg'] === 'dataset swapped');
    const swapped = swaps.at(-1);
    const diskBytes = dirBytes(dataDir);
    const bulkDir = join(dataDir, 'bulk');
    const bulkDiskBytes = existsSync(bulkDir) ? dirBytes(bulkDir) : 0;

    let backfill: BackfillResult | null = null;
    if (settings.backfill) {
      const dartSource = configuredSources(env).find((x) => x.name === 'opendart');
      if (!dartSource) throw new Error('no opendart source configured');
      const windows = quarterWindows(today);
      const publisher = app.publisher;
      log(`backfill: ten years of KR statements by the API path, ${windows.length} windows of three months`);
      const b0 = performance.now();
      const s0 = clock.now();
      const calls0 = replica.stats.opendart.calls;
      const refused0 = replica.stats.opendart.refusedDay;
      let runs = 0;
      let runsRefused = 0;
      const failed: BackfillResult['failed'] = [];
      for (const range of windows) {
        for (;;) {
          runs++;
          const refresher = new Refresher(app.store, [dartSource], () => new Date(clock.now()), logger, { onPublish: (v, s) => publisher.publish(v, s), range, sourceTimeoutMs: 24 * 3_600_000 });
          const status = (await refresher.run()).sources[0];
          if (status?.ok) break;
          if (/\b020\b/.test(status?.error ?? '')) {
            runsRefused++;
            // The operator runs it again the next Seoul day, a minute after midnight.
            const nowMs = clock.now();
            const nextMidnight = Math.floor((nowMs + 9 * 3_600_000) / 86_400_000 + 1) * 86_400_000 - 9 * 3_600_000;
            clock.advance(nextMidnight - nowMs + 60_000);
            continue;
          }
          failed.push({ ...range, error: (status?.error ?? 'no status').slice(0, 200) });
          break;
        }
      }
      const after: FirstStartResult['coverage'] = [];
      for (const c of await coverageOf(get, u)) after.push(c);
      backfill = {
        windows: windows.length,
        runs,
        runsRefused,
        failed,
        dartCalls: replica.stats.opendart.calls - calls0,
        dartRefusedDay: replica.stats.opendart.refusedDay - refused0,
        simulatedMs: Math.round(clock.now() - s0),
        realMs: Math.round(performance.now() - b0),
        coverage: after,
      };
      log(`backfill done: ${backfill.dartCalls} DART calls, ${round(backfill.simulatedMs / 86_400_000, 2)} days simulated, ${round(backfill.realMs / 1000, 1)} s real`);
    }

    const perSource: SourceRow[] = [...spansAtReady.entries()].map(([source, span]) => {
      const s: SourceStats | undefined = source === 'other' ? undefined : statsAtReady[source as ReplicaSource];
      return {
        source: source as SourceRow['source'],
        calls: span.calls,
        bytes: span.bytes,
        refusedRate: s?.refusedRate ?? 0,
        refusedDay: s?.refusedDay ?? 0,
        loggedOut: s?.loggedOut ?? 0,
        unanswered: s?.unanswered ?? 0,
        simulatedSpanMs: Math.round(span.lastSim - span.firstSim),
        realSpanMs: Math.round(span.lastReal - span.firstReal),
        waitedMs: Math.max(0, Math.round(span.lastSim - span.firstSim - (span.lastReal - span.firstReal))),
        overSourceTimeout: span.lastSim - span.firstSim > SOURCE_TIMEOUT_MS,
        byKind: s?.byKind ?? {},
      };
    });

    // Today's API path over ten years: every periodic report of the universe (2015 annual on),
    // one fnlttSinglAcntAll call each plus a second (OFS) for filers without consolidated
    // statements, at 20,000 a day; SEC two calls a company at 10 a second.
    const filings = filingsThrough(u, today);
    const dartCalls = filings.length + filings.filter((f) => f.company.separateOnly).length;
    const dartPerDay = DOCUMENTED_LIMITS.opendart.perDay ?? 20_000;
    const secCalls = 2 * u.us.length + 1;
    const polygon = progress.find((p) => p.source === 'polygon');
    const polygonRunning = lastRunning.get('polygon');
    const polygonPlan = POLYGON_PLANS.free;
    const result: FirstStartResult = {
      firstStart,
      meta: { startedAt: startedAt.toISOString(), node: process.version, cpus: cpus().length, scale: settings.scale, load: machineLoad() },
      universe: { kr: u.kr.length, krKospi: u.kr.filter((c) => c.corpCls === 'Y').length, krKosdaq: u.kr.filter((c) => c.corpCls === 'K').length, us: u.us.length, krUnlistedFilers: u.krUnlisted },
      bulk: bulkSummary,
      service: {
        firstDataset: { realMs: Math.round(firstDataset.realMs), simulatedMs: Math.round(firstDataset.simulatedMs) },
        readyRealMs: Math.round(readyRealMs),
        readySimulatedMs: Math.round(readySimulatedMs),
        waitedMs: Math.round(waitedMs),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        peakRssBytes,
        diskBytes,
        bulkDiskBytes,
        swaps: swaps.length,
        recompute: {
          loadMs: typeof swapped?.['loadMs'] === 'number' ? swapped['loadMs'] : null,
          computeMs: typeof swapped?.['computeMs'] === 'number' ? swapped['computeMs'] : null,
          maxStallMs: typeof swapped?.['maxStallMs'] === 'number' ? swapped['maxStallMs'] : null,
          securities: typeof swapped?.['securities'] === 'number' ? swapped['securities'] : null,
        },
        sources: Array.isArray(health['sources']) ? (health['sources'] as FirstStartResult['service']['sources']) : [],
      },
      perSource,
      coverage,
      krFirstHour: (() => {
        const pct = (scored: number): number => round((100 * scored) / u.kr.length, 1);
        const within = krSamples.filter((x) => x.minutes <= 60).at(-1);
        const reached = krSamples.find((x) => pct(x.scored) >= 95);
        return { atHour: within ? { ...within, pct: pct(within.scored) } : null, reached95AtMinutes: reached?.minutes ?? null, samples: krSamples };
      })(),
      served: {
        health: healthCoverage?.markets ?? [],
        readyz: readyz.markets ?? [],
        readyzStatus: readyz.status ?? null,
        unscored: Object.fromEntries((healthCoverage?.tools ?? []).filter((t) => t.tool === 'get_stock_score').map((t) => [t.market, Object.fromEntries(Object.entries(t.nulls).filter(([, n]) => n > 0))])),
      },
      metricCoverage: {
        metrics: healthCoverage?.metrics ?? [],
        servedShare: (healthCoverage?.markets ?? []).map((m) => {
          const listings = m.market === 'KR' ? u.kr.length : u.us.length;
          return { market: m.market, listings, listed: m.listed, priced: m.priced, pct: round((100 * m.priced) / listings, 1) };
        }),
        overListings: overListings(healthCoverage?.metrics ?? [], { KR: u.kr.length, US: u.us.length }),
        belowTarget: overListings(healthCoverage?.metrics ?? [], { KR: u.kr.length, US: u.us.length })
          .filter((m) => m.percentile && m.applicable > 0 && m.complete < METRIC_TARGET)
          .map((m) => `${m.metric} ${m.market} ${round(m.complete * 100, 1)} %`),
      },
      progress: progress.map((p) => ({ source: p.source, phase: p.phase, unit: p.unit, done: p.done, total: p.total, callsToday: p.callsToday, etaSeconds: p.etaSeconds, nextTryAt: p.nextTryAt, note: p.note })),
      priceHistory: polygon
        ? {
            phase: polygon.phase,
            done: polygon.done,
            total: polygon.total,
            etaSeconds: polygon.etaSeconds,
            lastRunning: polygonRunning ? { phase: polygonRunning.phase, done: polygonRunning.done, total: polygonRunning.total, etaSeconds: polygonRunning.etaSeconds, note: polygonRunning.note } : null,
            // One day per call at the free plan's 5 calls a minute: the days left, at that pace.
            remainingDays: polygon.total === null ? null : polygon.total - polygon.done,
            remainingSecondsAtPlanRate: polygon.total === null ? null : Math.round(((polygon.total - polygon.done) * 60) / polygonPlan.requestsPerMinute),
          }
        : null,
      today: {
        dartFilingsTenYears: filings.length,
        dartCallsTenYears: dartCalls,
        dartDaysAtAllowance: round(dartCalls / dartPerDay, 1),
        secCallsAllCompanies: secCalls,
        secHoursAtRate: round(secCalls / 10 / 3600, 2),
        polygonDaysOfHistoryPerHourAtRate: 5 * 60,
        note: "The API path's calls for the whole history: DART's first run looks back 90 days, a backfill per three months fetches the rest; SEC is asked for every company; Polygon walks back one day per call.",
      },
      backfill,
      dividends,
      unanswered: [...new Set(replica.unanswered)].slice(0, 50),
    };
    if (!settings.keep) log(`run folder ${runDir} removed at the end (BENCH_KEEP=1 keeps it)`);
    else log(`run folder kept: ${runDir}`);
    return result;
  } finally {
    metered?.restore();
    await app?.close().catch(() => undefined);
    await replica?.close();
    restoreTimer();
    if (!settings.keep) rmSync(runDir, { recursive: true, force: true });
  }
}

/** The KRX member sign-in (FORMATS.md section 4) against the replica: the session cookie an operator would paste. */
async function krxSignIn(base: string): Promise<string> {
  const page = await fetch(`${base}/contents/MDC/COMS/client/MDCCOMS001.cmd`);
  await page.arrayBuffer();
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const res = await fetch(`${base}/contents/MDC/COMS/client/MDCCOMS001D1.cmd`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ mbrId: KRX_MEMBER.id, pw: KRX_MEMBER.password, skipDup: 'Y' }).toString(),
  });
  const code = ((await res.json()) as { _error_code?: string })._error_code;
  if (code !== 'CD001') throw new Error(`KRX sign-in on the replica answered ${code}`);
  return cookie;
}

/**
 * Per-metric lines over the replica's listings: those the store does not list added to `listed`
 * and to the `other` nulls, `applicable` and `complete` recomputed as the report computes them.
 */
export function overListings(metrics: readonly MetricCoverage[], listings: Record<'KR' | 'US', number>): MetricCoverage[] {
  return metrics.map((m) => {
    const missing = Math.max(0, listings[m.market] - m.listed);
    const line = { ...m, listed: m.listed + missing, nulls: { ...m.nulls, other: m.nulls.other + missing } };
    return { ...line, ...applicableOf(line) };
  });
}

/** Listed stocks of each market with a score: rankings' totalCount over every market-cap band, over the replica's listed companies. */
async function coverageOf(get: (path: string) => Promise<Record<string, unknown>>, u: Replica['universe']): Promise<FirstStartResult['coverage']> {
  const out: FirstStartResult['coverage'] = [];
  for (const market of ['KR', 'US'] as const) {
    const answer = await get(`/rankings?market=${market}&limit=1&bands=${BAND_KEYS.join(',')}`);
    const scored = typeof answer['totalCount'] === 'number' ? answer['totalCount'] : 0;
    const listed = market === 'KR' ? u.kr.length : u.us.length;
    out.push({ market, listed, scored, pct: round((100 * scored) / listed, 1) });
  }
  return out;
}

function readLog(file: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const text = readFileSync(file, 'utf8');
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  }
  return out;
}

const mib = (b: number | null): number | null => (b === null ? null : round(b / 1024 / 1024, 0));
const hours = (ms: number): number => round(ms / 3_600_000, 2);

export function printResult(r: FirstStartResult): void {
  process.stdout.write(`\nFirst-start rehearsal (${r.firstStart} path), scale ${r.meta.scale}, load ${JSON.stringify(r.meta.load)}: ${r.universe.kr} KR (${r.universe.krKospi} KOSPI, ${r.universe.krKosdaq} KOSDAQ), ${r.universe.us} US companies\n`);
  if (r.bulk) process.stdout.write(`bulk files: ${r.bulk.cached ? 'reused from cache' : `generated in ${round(r.bulk.generationMs / 1000, 1)} s`} (DART ${r.bulk.dartZips} ZIPs ${mib(r.bulk.dartBytes)} MiB; companyfacts.zip ${mib(r.bulk.companyfactsBytes)} MiB; submissions.zip ${mib(r.bulk.submissionsBytes)} MiB), not counted below\n`);
  printTable(
    ['source', 'calls', 'MiB', 'refused rate', 'refused day', 'LOGOUT', 'simulated min', 'waited min', 'real s', 'over the 10-min source timeout', 'calls by kind (replica)'],
    r.perSource.map((s) => [s.source, s.calls, round(s.bytes / 1024 / 1024, 1), s.refusedRate, s.refusedDay, s.loggedOut, round(s.simulatedSpanMs / 60_000, 1), round(s.waitedMs / 60_000, 1), round(s.realSpanMs / 1000, 1), s.overSourceTimeout ? 'YES' : 'no', Object.entries(s.byKind).map(([k, n]) => `${k} ${n}`).join(', ')]),
  );
  const sv = r.service;
  process.stdout.write(
    `\nservice: first dataset after ${round(sv.firstDataset.realMs / 1000, 1)} s real = ${round(sv.firstDataset.simulatedMs / 60_000, 1)} min simulated; ` +
      `first start loaded after ${round(sv.readyRealMs / 1000, 1)} s real = ${hours(sv.readySimulatedMs)} h simulated (${hours(sv.waitedMs)} h of it waiting); CPU ${round(sv.cpuMs / 1000, 1)} s (service and replica in one process); ` +
      `peak RSS ${mib(sv.peakRssBytes)} MiB (same process); disk ${mib(sv.diskBytes)} MiB (${mib(sv.bulkDiskBytes)} MiB of it downloaded bulk files); ${sv.swaps} datasets published, the last one's recompute load ${sv.recompute.loadMs} ms + compute ${sv.recompute.computeMs} ms, longest stall ${sv.recompute.maxStallMs} ms\n`,
  );
  printTable(['source (service view)', 'ok', 'records', 'error'], sv.sources.map((s) => [s.source, s.ok ? 'yes' : 'NO', s.records ?? '-', (s.error ?? '').slice(0, 110)]));
  printTable(['market', 'listed (replica)', 'with a score (rankings)', '%'], r.coverage.map((c) => [c.market, c.listed, c.scored, c.pct]));
  const fh = r.krFirstHour;
  process.stdout.write(
    `KR with a score within the first simulated hour: ${fh.atHour ? `${fh.atHour.scored}/${r.universe.kr} (${fh.atHour.pct} %) at ${fh.atHour.minutes} min` : 'no sample within the hour'}; ` +
      `95 % reached by ${fh.reached95AtMinutes === null ? 'never in this run' : `${fh.reached95AtMinutes} min`} (samples every 2 s real time: ${fh.samples.length})\n`,
  );
  printTable(['market (health coverage)', 'listed (store)', 'priced', 'scored', 'complete'], r.served.health.map((m) => [m.market, m.listed, m.priced, m.scored, m.complete]));
  process.stdout.write(`/readyz: ${r.served.readyzStatus}, ${r.served.readyz.map((m) => `${m.market} ${m.scored}/${m.listed} scored`).join(', ')}; without a score, by reason: ${JSON.stringify(r.served.unscored)}\n`);
  const mc = r.metricCoverage;
  process.stdout.write(
    `\ncoverage per metric (health coverage.metrics over the replica's listings; a listing the store does not list counted as other); listings served with a price: ` +
      `${mc.servedShare.map((m) => `${m.market} ${m.priced} of the replica's ${m.listings} = ${m.pct} %${m.listed < m.listings ? ` (${m.listings - m.listed} not listed by the store)` : ''}`).join(', ')}:\n`,
  );
  process.stdout.write(`${coverageMetricTable({ asOf: '', markets: [], tools: [], metrics: mc.overListings } satisfies CoverageReport).join('\n')}\n`);
  process.stdout.write(`percentile metrics below ${METRIC_TARGET * 100} % of the stocks they apply to: ${mc.belowTarget.length === 0 ? 'none' : mc.belowTarget.join(', ')}\n\n`);
  printTable(['source (progress board)', 'phase', 'done', 'total', 'calls today', 'ETA h', 'next try', 'note'], r.progress.map((p) => [p.source, p.phase, `${p.done} ${p.unit}`, p.total ?? '-', p.callsToday, p.etaSeconds === null ? '-' : round(p.etaSeconds / 3600, 2), p.nextTryAt ?? '-', (p.note ?? '').slice(0, 80)]));
  const ph = r.priceHistory;
  if (ph) {
    const lr = ph.lastRunning;
    process.stdout.write(
      `US price history (Polygon): board ${ph.phase}, ${ph.done}/${ph.total ?? '?'} days, board ETA ${ph.etaSeconds === null ? 'unknown' : `${round(ph.etaSeconds / 3600, 2)} h`}; ` +
        `last while running: ${lr ? `${lr.phase} ${lr.done}/${lr.total ?? '?'}, ETA ${lr.etaSeconds === null ? 'unknown' : `${round(lr.etaSeconds / 3600, 2)} h`}` : 'not seen'}; ` +
        `${ph.remainingDays ?? '?'} days left = ${ph.remainingSecondsAtPlanRate === null ? '?' : round(ph.remainingSecondsAtPlanRate / 3600, 2)} h at 5 calls a minute\n`,
    );
  }
  const t = r.today;
  process.stdout.write(
    `\nten years on the API path: DART ${t.dartFilingsTenYears} filings -> ${t.dartCallsTenYears} fnlttSinglAcntAll calls = ${t.dartDaysAtAllowance} days of the 20,000-a-day allowance; ` +
      `SEC ${t.secCallsAllCompanies} calls = ${t.secHoursAtRate} h at 10/s; Polygon ${t.polygonDaysOfHistoryPerHourAtRate} days of history per hour at 5 calls a minute\n`,
  );
  const b = r.backfill;
  if (b) {
    process.stdout.write(
      `ten years of KR statements by today's API path, measured: ${b.windows} three-month DART backfills in ${b.runs} runs (${b.runsRefused} stopped by status 020 and rerun the next day), ` +
        `${b.dartCalls} DART calls (${b.dartRefusedDay} refused), ${round(b.simulatedMs / 86_400_000, 2)} days simulated, ${round(b.realMs / 1000, 1)} s real; coverage after: ${b.coverage.map((c) => `${c.market} ${c.scored}/${c.listed} (${c.pct} %)`).join(', ')}` +
        `${b.failed.length > 0 ? `; failed windows: ${b.failed.map((f) => `${f.from}..${f.to}: ${f.error}`).join(' | ')}` : ''}\n`,
    );
  }
  const d = r.dividends;
  if (d) {
    process.stdout.write(
      `dividend backfill after the bulk first start (first pass): ${d.status}; ${d.calls} alotMatter.json calls (replica saw ${d.replicaCalls}), ${d.figures} figures, ${d.noData} without one, ` +
        `${d.written} filings written, ${d.left} periods left for the next days; ${round(d.realMs / 1000, 1)} s real, ${round(d.simulatedMs / 60_000, 1)} min simulated\n`,
    );
  }
  if (r.unanswered.length > 0) process.stdout.write(`replica had no answer for: ${r.unanswered.slice(0, 10).join(' ')}\n`);
}

export async function main(): Promise<void> {
  const settings = settingsFromEnv();
  log(`first-start rehearsal: ${JSON.stringify(settings)}; load ${JSON.stringify(machineLoad())}`);
  const result = await rehearse(settings);
  if (settings.resultsFile) writeFileSync(settings.resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  printResult(result);
}
