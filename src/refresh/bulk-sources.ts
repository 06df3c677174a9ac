// The bulk sources of a first start, an `import` and a backfill: which bulk files to read (downloaded
// into a folder, or found in one the operator filled), the readers over them, and the cursors
// the hourly API runs take up from afterwards. The one place that wires the bulk readers
// (src/sources/opendart/bulk*.ts, src/sources/sec/bulk*.ts) to the refresh.

import { readdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { seoulDay } from '../kernel/clock.js';
import type { UsdSeries } from '../domain/reference-rates.js';
import { clientForRun, RateLimiter, type HttpClient } from '../sources/http.js';
import { OpenDartBulkReader, type KnowledgeKey } from '../sources/opendart/bulk.js';
import { downloadDartBulk } from '../sources/opendart/bulk-list.js';
import { OpenDartSource, writeCursor } from '../sources/opendart/source.js';
import { EcbSource } from '../sources/ecb/source.js';
import { SecBulkReader } from '../sources/sec/bulk.js';
import { downloadSecArchives } from '../sources/sec/bulk-download.js';
import { SEC_UPSTREAM } from '../sources/sec/parse.js';
import { SecSource } from '../sources/sec/source.js';
import { addDays } from '../sources/shared/parse.js';
import type { Source, SourceLogger } from '../sources/source.js';
import type { RefreshStore } from '../store/refresh-store.js';
import type { BulkInput, BulkPreparation } from './import.js';

// --- What a folder holds ----------------------------------------------------------------------

/** OpenDART's published ZIP names: `{YYYY}_{1-4}Q_{BS|PL|CF|CE}_{YYYYMMDDhhmmss}.zip`. */
const DART_ZIP = /^(\d{4})_([1-4])Q_(BS|PL|CF|CE)_(\d{8})\d{6}\.zip$/;

export interface DartCoverage {
  /** The newest period among the files, `YYYY-Qn`. */
  period: string;
  /** The earliest build date (`YYYY-MM-DD`) of that period's files: filings received after it are not in them. */
  builtOn: string;
}

/** The newest period the DART bulk files cover and when they were built; null when there is none. */
export function dartCoverage(names: readonly string[]): DartCoverage | null {
  let best: { key: number; period: string; builtOn: string } | null = null;
  for (const name of names) {
    const m = DART_ZIP.exec(name);
    if (!m) continue;
    const key = Number(m[1]) * 10 + Number(m[2]);
    const stamp = m[4] as string;
    const builtOn = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}`;
    if (!best || key > best.key) best = { key, period: `${m[1]}-Q${m[2]}`, builtOn };
    else if (key === best.key && builtOn < best.builtOn) best.builtOn = builtOn;
  }
  return best && { period: best.period, builtOn: best.builtOn };
}

export interface FolderContents {
  dartZips: string[];
  companyfacts: boolean;
  submissions: boolean;
  /** Files that are none of these, each with why it is not read. */
  others: { name: string; reason: string }[];
}

/**
 * Why a file in an import folder is not read. SEC's quarterly financial statement data sets
 * (`2009q3.zip`, num/sub/tag/pre tables) hold the same XBRL facts as the nightly companyfacts
 * archive, per filing rather than per company; the service reads the per-company archive, which
 * is byte for byte what the API answers (one parser for both).
 */
export function notABulkFile(name: string): string {
  if (/^(\d{4}q[1-4]|sec_fsds.*)\.zip$/i.test(name)) return "SEC's financial statement data sets: not read (the same facts come from companyfacts.zip)";
  if (/^\d{4}_[1-4]Q_(BS|PL|CF|CE)_/.test(name)) return 'not a published DART bulk file name (YYYY_nQ_XX_YYYYMMDDhhmmss.zip)';
  return 'not a bulk file the service reads';
}

/** The bulk files in `dir` under their published names (nothing when it does not exist). */
export function folderContents(dir: string): FolderContents {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  const dartZips = names.filter((n) => DART_ZIP.test(n)).sort();
  const known = new Set([...dartZips, 'companyfacts.zip', 'submissions.zip']);
  return {
    dartZips,
    companyfacts: names.includes('companyfacts.zip'),
    submissions: names.includes('submissions.zip'),
    others: names.filter((n) => !known.has(n) && !n.startsWith('.')).sort().map((name) => ({ name, reason: notABulkFile(name) })),
  };
}

// --- The plan -----------------------------------------------------------------------------------

type Env = Record<string, string | undefined>;

export interface BulkPlanOptions {
  /** Where the files are (or go, when downloading). */
  dir: string;
  /** Download the files first (a first start, `import` without --from), or read what `dir` holds. */
  download: boolean;
  /** The Seoul day of the import. */
  asOf: string;
  /** The configured API sources: OpenDART's filing list gives knowledge dates, SEC's ticker list the tickers. */
  sources: readonly Source[];
  env: Env;
  fetch?: typeof fetch;
  /** First and last year of DART's quarterly files (default 2015, the first published, to the year of asOf). */
  fromYear?: number;
  toYear?: number;
}

/** Sources whose statements the bulk files bring: their first API pass is replaced, not repeated. */
export const BULK_SOURCES: ReadonlySet<string> = new Set(['opendart', 'sec']);

/**
 * API sources whose records need a placement only the bulk brings on a first start (Polygon's
 * bars name US tickers SEC places): they run after the bulk, or their first days' bars would be
 * skipped as unknown securities while their cursor moves on.
 */
export const AFTER_BULK_SOURCES: ReadonlySet<string> = new Set(['polygon']);

export interface BulkPlan {
  inputs: readonly BulkInput[];
  /**
   * After the import: sets the cursor of each bulk-covered source that read through and has none
   * yet, so its first hourly API run takes up where the files end (docs in the function).
   */
  setCursors(store: Pick<RefreshStore, 'getMeta' | 'setMeta'>, sources: readonly { source: string; ok: boolean }[]): Promise<Record<string, string>>;
}

/**
 * The bulk inputs for `dir`: OpenDART's quarterly ZIPs (always, no key needed; knowledge dates
 * from the filing list when a DART key is configured) and SEC's archives (when SEC_USER_AGENT is
 * set: SEC requires it for the download and the ticker list). Reading from a folder, a source
 * with no file there is left out.
 */
export function bulkPlan(options: BulkPlanOptions): BulkPlan & { inputs: BulkPreparation[] } {
  const { dir, env, asOf } = options;
  const doFetch = options.fetch ?? globalThis.fetch;
  const fromYear = options.fromYear ?? 2015;
  const toYear = options.toYear ?? Number(asOf.slice(0, 4));
  // One folder for both, downloaded or not, so what a first start downloaded can be read again
  // with `import --from BULK_DIR`.
  const dartDir = dir;
  const secDir = dir;
  const found = options.download ? null : folderContents(dir);
  const dartApi = options.sources.find((s): s is OpenDartSource => s instanceof OpenDartSource);
  const secApi = options.sources.find((s): s is SecSource => s instanceof SecSource);
  const ecbApi = options.sources.find((s): s is EcbSource => s instanceof EcbSource);
  const userAgent = env['SEC_USER_AGENT']?.trim();
  const client = (source: string, ctx: { signal?: AbortSignal; log: SourceLogger }, extra: { headers?: Record<string, string>; perSecond: number; timeoutMs?: number; upstream?: string }): HttpClient =>
    clientForRun(source, { fetch: doFetch, ...(ctx.signal ? { signal: ctx.signal } : {}), log: ctx.log }, { timeoutMs: extra.timeoutMs ?? 120_000 }, {
      limiter: extra.upstream ? RateLimiter.shared(extra.upstream, extra.perSecond) : RateLimiter.perSecond(extra.perSecond),
      ...(extra.headers ? { headers: extra.headers } : {}),
    });
  let secVintage: string | null = null;
  let dartFiles: string[] = found?.dartZips ?? [];

  const inputs: BulkPreparation[] = [];
  if (options.download || (found?.dartZips.length ?? 0) > 0) {
    inputs.push({
      source: 'opendart',
      open: async (ctx) => {
        const knowledge = async (): Promise<((key: KnowledgeKey) => string | null) | undefined> => {
          if (!dartApi) {
            ctx.log.warn('opendart bulk: no DART_API_KEY: knowledge dates are assumed at the statutory deadlines (counted)');
            return undefined;
          }
          // The source's own client: its calls count against the key's daily allowance.
          const index = await dartApi.filingDates(dartApi.client({ fetch: doFetch, ...(ctx.signal ? { signal: ctx.signal } : {}), log: ctx.log }), `${fromYear}-01-01`, asOf);
          return (key) => index.knowledgeDate(key);
        };
        const download = async (): Promise<void> => {
          if (!options.download) return;
          await mkdir(dartDir, { recursive: true });
          const http = client('opendart', ctx, { perSecond: 2 });
          const got = await downloadDartBulk(http, dartDir, {
            ...(env['DART_BASE_URL'] ? { baseUrl: env['DART_BASE_URL'] } : {}),
            fromYear,
            toYear,
            progress: ctx.progress,
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          });
          dartFiles = got.files.map((f) => f.split(/[\\/]/).pop() ?? f);
          // A file that could not be had is counted with its reason; the others are read.
          for (const f of got.failed) ctx.skip(`file not downloaded: ${f.reason}`, f.name);
        };
        const [knowledgeDates] = await Promise.all([knowledge(), download()]);
        return new OpenDartBulkReader({ dir: dartDir, fromYear, toYear, ...(knowledgeDates ? { knowledgeDates } : {}) });
      },
    });
  }
  const secWanted = options.download ? userAgent !== undefined && userAgent !== '' : (found?.companyfacts ?? false);
  if (secWanted) {
    inputs.push({
      source: 'sec',
      open: async (ctx) => {
        if (!userAgent) throw new Error('SEC_USER_AGENT is not set: SEC requires a contact for its ticker list and archives');
        if (!secApi) throw new Error('the SEC source is not configured: its ticker list names the companies');
        const http = client('sec', ctx, { perSecond: 10, upstream: SEC_UPSTREAM, headers: { 'user-agent': userAgent, accept: 'application/json, application/zip, */*' }, timeoutMs: 30 * 60_000 });
        ctx.progress({ phase: 'listing', note: 'company_tickers.json' });
        const tickers = await secApi.tickers(http);
        if (options.download) {
          await mkdir(secDir, { recursive: true });
          const got = await downloadSecArchives(http, secDir, {
            ...(env['SEC_BASE_URL'] ? { wwwBaseUrl: env['SEC_BASE_URL'] } : {}),
            progress: ctx.progress,
            skip: (reason, example) => ctx.skip(reason, example),
            ...(ctx.signal ? { signal: ctx.signal } : {}),
            fetch: doFetch,
            userAgent,
          });
          secVintage = got.vintage.slice(0, 10);
        } else {
          // The archive's vintage is the day it was written to the folder.
          secVintage = seoulDay(statSync(join(secDir, 'companyfacts.zip')).mtime);
        }
        const only = env['SEC_TICKERS']?.split(',').map((t) => t.trim().toUpperCase()).filter(Boolean);
        // The ECB's reference rates, read here for the conversion of foreign filers without a USD
        // translation (the ECB source's own run, beside the import, stores them). Without them
        // such filers' filings are left out and counted, as the API run leaves them out.
        let usdRates: Map<string, UsdSeries> | undefined;
        if (ecbApi) {
          try {
            usdRates = await ecbApi.usdSeries({ fetch: doFetch, ...(ctx.signal ? { signal: ctx.signal } : {}), log: ctx.log }, asOf);
          } catch (err) {
            ctx.log.warn('sec bulk: the ECB reference rates could not be read; foreign filers without a USD translation are left out', { error: (err as Error).message.slice(0, 200) });
          }
        }
        return new SecBulkReader({ dir: secDir, tickers, ...(only && only.length > 0 ? { onlyTickers: only } : {}), ...(usdRates ? { usdRates } : {}) });
      },
    });
  }

  return {
    inputs,
    async setCursors(store, statuses) {
      const set: Record<string, string> = {};
      const readThrough = (source: string) => statuses.some((s) => s.source === source && s.ok);
      // OpenDART: list.json from the day the newest period's files were built (filings received
      // since are not in them), at most 89 days back (the API lists three months at most without
      // a corp_code). Company records (company.json) follow at the adapter's pace: known = [].
      const coverage = dartCoverage(dartFiles);
      if (coverage && readThrough('opendart') && (await store.getMeta('cursor:opendart')) === null) {
        const from = coverage.builtOn > addDays(asOf, -89) ? coverage.builtOn : addDays(asOf, -89);
        set['opendart'] = writeCursor({ date: from, known: [] });
      }
      // SEC: the EDGAR daily indexes from the day before the archives' vintage (SEC builds them
      // nightly; the day before is read again, which is idempotent).
      if (secVintage && readThrough('sec') && (await store.getMeta('cursor:sec')) === null) set['sec'] = addDays(secVintage, -1);
      for (const [source, cursor] of Object.entries(set)) await store.setMeta(`cursor:${source}`, cursor);
      return set;
    },
  };
}
