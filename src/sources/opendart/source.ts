// OpenDART adapter: finds periodic reports filed since the last run (list.json, pblntf_ty=A),
// keeps listed companies (corpCode.xml), and fetches each report's full statements
// (fnlttSinglAcntAll.json), consolidated first and separate as the fallback, and its dividend
// section (alotMatter.json) for the dividend per share. Listed companies
// whose sector is not yet known get one company.json call each (KSIC industry -> sector).

import type { FinancialReport, Security } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { AllowanceSpent, CallMeter, CallPlan } from '../meter.js';
import { ignoreProgress, type ProgressSink } from '../progress.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate, jsonObject, lastDayOfMonth } from '../shared/parse.js';
import {
  DART_STATUS,
  parseCorpCodeXml,
  parseDartEnvelope,
  parseCompany,
  parseAlotMatter,
  parseFinancialStatements,
  depositShareOfAnswer,
  parsePeriodicFiling,
  parseFilingPeriod,
  filingDateIndex,
  exchangeOfCorpCls,
  placedFiler,
  SOURCE_NAME,
  type CorpCode,
  type DartEnvelope,
  type FilingDateIndex,
  type FilingPeriod,
  type PeriodicFiling,
} from './parse.js';
import { sectorByDeposits } from './sectors.js';
import { readFirstZipEntry } from './zip.js';

export interface OpenDartConfig extends HttpTuning {
  apiKey: string;
  baseUrl?: string;
  /** OpenDART allows 20,000 calls a day per key and answers status 020 past it; we also pace calls. */
  requestsPerSecond?: number;
  /** How far back the first run looks (list.json searches at most three months without corp_code). */
  firstRunDays?: number;
  /**
   * At most this many company.json calls a run; unset, every listed company not yet known is
   * asked (about 2,700 calls on a first day, well inside the allowance) until the allowance runs out.
   */
  companiesPerRun?: number;
  /** Calls a Seoul day per key (OpenDART's documented 20,000). */
  dailyAllowance?: number;
  /**
   * Time from the start of a run after which no further company.json is asked (default 480 s,
   * inside the refresh's ten-minute source timeout, which would discard the whole run); the
   * rest follow on the next run. 0: no bound.
   */
  runBudgetMs?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

/**
 * The cursor: the last `asOf` and the corp_codes whose company.json was read. Written as JSON
 * `{"date":"YYYY-MM-DD","known":["00126380",...]}`; a bare date (the cursor before company.json)
 * reads as that date with no company known.
 */
export interface OpenDartCursor {
  date: string;
  known: string[];
}

export function readCursor(raw: string | null): OpenDartCursor | null {
  if (raw === null) return null;
  if (!raw.trimStart().startsWith('{')) return { date: raw, known: [] };
  const body = jsonObject(raw);
  if (body === null) return null;
  const { date, known } = body;
  if (typeof date !== 'string') return null;
  return { date, known: Array.isArray(known) ? known.filter((c): c is string => typeof c === 'string') : [] };
}

export function writeCursor(cursor: OpenDartCursor): string {
  return JSON.stringify({ date: cursor.date, known: [...new Set(cursor.known)].sort() });
}

/**
 * [from, to] cut into consecutive windows of at most three calendar months: each starts the day
 * after the previous ends, and ends the day before the same day three months on (or at `to`).
 */
export function threeMonthWindows(from: string, to: string): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  let start = from;
  while (start <= to) {
    const [y, m, d] = start.split('-').map(Number) as [number, number, number];
    // The same day three months on, or that month's last day when it has no such day (11-30 -> 02-28).
    const month = new Date(Date.UTC(y, m - 1 + 3, 1)).toISOString().slice(0, 8);
    const lastDay = lastDayOfMonth(Number(month.slice(0, 4)), Number(month.slice(5, 7)));
    const sameDay = `${month}${String(d).padStart(2, '0')}`;
    const end = addDays(sameDay < lastDay ? sameDay : lastDay, -1);
    out.push({ from: start, to: end < to ? end : to });
    start = addDays(end, 1);
  }
  return out;
}

export class OpenDartSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  /** Every call of this key in the current Seoul day, against OpenDART's 20,000. */
  readonly meter: CallMeter;

  constructor(private readonly config: OpenDartConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://opendart.fss.or.kr').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 5);
    this.meter = new CallMeter(SOURCE_NAME, config.dailyAllowance ?? 20_000, config.clock);
  }

  static fromEnv(env: Record<string, string | undefined>): OpenDartSource | null {
    const apiKey = env['DART_API_KEY']?.trim();
    if (!apiKey) return null;
    // A key granted more than OpenDART's standard 20,000 calls a day (or a shared key held to fewer).
    const allowance = Number(env['DART_DAILY_ALLOWANCE']);
    return new OpenDartSource({ apiKey, baseUrl: env['DART_BASE_URL'] || undefined, ...(Number.isInteger(allowance) && allowance > 0 ? { dailyAllowance: allowance } : {}) });
  }

  /** The run's HttpClient, its calls metered against the key's allowance (pass it to `filingDates` so those count too). */
  client(ctx: Pick<SourceContext, 'fetch' | 'signal' | 'log'>): HttpClient {
    return clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets: [this.config.apiKey] });
  }

  private url(path: string, params: Record<string, string>): string {
    const q = new URLSearchParams({ crtfc_key: this.config.apiKey, ...params });
    return `${this.baseUrl}/api/${path}?${q.toString()}`;
  }

  /** Listed companies from corpCode.xml, keyed by corp_code. */
  async listedCompanies(http: HttpClient): Promise<Map<string, CorpCode>> {
    const url = this.url('corpCode.xml', {});
    const bytes = await http.getBytes(url);
    let xml: string;
    try {
      xml = new TextDecoder('utf-8').decode((await readFirstZipEntry(bytes)).data);
    } catch (err) {
      // An error answer is a small JSON/XML status body instead of a ZIP.
      const text = new TextDecoder().decode(bytes.slice(0, 300));
      throw http.parseError(`corpCode.xml is not a ZIP (${err instanceof Error ? err.message : String(err)}): ${text}`, url);
    }
    return new Map(parseCorpCodeXml(xml).map((c) => [c.corpCode, c]));
  }

  private async envelope(http: HttpClient, url: string): Promise<DartEnvelope> {
    return this.checked(http, url, await http.getJson(url));
  }

  /** The envelope of an answer; throws on a missing status, 020 and any status but 000/013. */
  private checked(http: HttpClient, url: string, body: unknown): DartEnvelope {
    const env = parseDartEnvelope(body);
    if (env === null) throw http.parseError('no status field', url);
    if (env.status === DART_STATUS.RATE_LIMIT) throw http.upstreamError(`status 020 request limit exceeded: ${env.message}`, url);
    if (env.status !== DART_STATUS.OK && env.status !== DART_STATUS.NO_DATA) {
      throw http.upstreamError(`status ${env.status}: ${env.message}`, url);
    }
    return env;
  }

  /** list.json rows of periodic reports (pblntf_ty=A) received between two dates, all pages. */
  private async periodicRows(http: HttpClient, from: string, to: string, params: Record<string, string> = {}): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const url = this.url('list.json', {
        bgn_de: compactDate(from),
        end_de: compactDate(to),
        pblntf_ty: 'A',
        ...params,
        page_no: String(page),
        page_count: '100',
      });
      const env = await this.envelope(http, url);
      out.push(...env.list);
      if (env.status === DART_STATUS.NO_DATA || page >= env.totalPage) break;
    }
    return out;
  }

  /** Periodic reports (사업/반기/분기보고서) received between two dates, all pages. */
  async periodicFilings(http: HttpClient, from: string, to: string): Promise<{ filings: PeriodicFiling[]; unreadable: number }> {
    const out: PeriodicFiling[] = [];
    let unreadable = 0;
    for (const row of await this.periodicRows(http, from, to)) {
      const filing = parsePeriodicFiling(row);
      if (filing) out.push(filing);
      else unreadable++;
    }
    return { filings: out, unreadable };
  }

  /**
   * When KOSPI and KOSDAQ companies' periodic reports became public, for the bulk files'
   * knowledge dates (`OpenDartBulkReader`'s `knowledgeDates`): list.json (pblntf_ty=A) for
   * corp_cls Y and K over [from, to], in windows of at most three months (list.json searches no
   * more without a corp_code), every page. Any fiscal year end: the period is the month
   * report_nm names. Start the range before the first period's filings, or a correction may be
   * the earliest filing found.
   */
  async filingDates(http: HttpClient, from: string, to: string, progress: ProgressSink = ignoreProgress): Promise<FilingDateIndex> {
    const periods: FilingPeriod[] = [];
    const windows = threeMonthWindows(from, to);
    const calls = windows.length * 2;
    progress({ phase: 'listing', unit: 'windows', done: 0, total: calls, note: 'filing dates for the bulk files' });
    let done = 0;
    for (const w of windows) {
      for (const corpCls of ['Y', 'K']) {
        for (const row of await this.periodicRows(http, w.from, w.to, { corp_cls: corpCls })) {
          const period = parseFilingPeriod(row);
          if (period) periods.push(period);
        }
        progress({ done: ++done });
      }
    }
    return filingDateIndex(periods);
  }

  /**
   * Full statements for one filing: CFS, then OFS when CFS has no data (status 013 / empty list),
   * with the customer deposits' share of liabilities they show (`depositShareOf`).
   */
  async statements(http: HttpClient, filing: PeriodicFiling, code: string): Promise<{ report: FinancialReport; depositShare: number | null } | null> {
    for (const fsDiv of ['CFS', 'OFS'] as const) {
      const url = this.url('fnlttSinglAcntAll.json', {
        corp_code: filing.corpCode,
        bsns_year: String(filing.fiscalYear),
        reprt_code: filing.reprtCode,
        fs_div: fsDiv,
      });
      const env = await this.envelope(http, url);
      const report = parseFinancialStatements(env, {
        code,
        fiscalYear: filing.fiscalYear,
        fiscalQuarter: filing.fiscalQuarter,
        periodEnd: filing.periodEnd,
        fsDiv,
      });
      if (report) return { report, depositShare: depositShareOfAnswer(env) };
    }
    return null;
  }

  /**
   * The common share's cash dividend per share declared for the fiscal year to date, from the
   * filing's dividend section (alotMatter.json, `parseAlotMatter`): one call per filing, metered
   * and paced with the statements' calls. Null when OpenDART has none (status 013).
   */
  async dividendPerShare(http: HttpClient, filing: Pick<PeriodicFiling, 'corpCode' | 'fiscalYear' | 'reprtCode'>): Promise<number | null> {
    const url = this.url('alotMatter.json', { corp_code: filing.corpCode, bsns_year: String(filing.fiscalYear), reprt_code: filing.reprtCode });
    return parseAlotMatter(await this.envelope(http, url));
  }

  /**
   * As `dividendPerShare`, for a walk over many reports (the dividend backfill after a first start
   * from the bulk files, src/refresh/dividends.ts): status 020 ends the day's calls (the meter is
   * spent and AllowanceSpent thrown, as `company` does) instead of failing the walk.
   */
  async dividendOf(http: HttpClient, filing: Pick<PeriodicFiling, 'corpCode' | 'fiscalYear' | 'reprtCode'>): Promise<number | null> {
    const url = this.url('alotMatter.json', { corp_code: filing.corpCode, bsns_year: String(filing.fiscalYear), reprt_code: filing.reprtCode });
    const body = await http.getJson(url);
    if (parseDartEnvelope(body)?.status === DART_STATUS.RATE_LIMIT) {
      this.meter.spend();
      throw new AllowanceSpent(this.name, this.meter.callsToday, this.meter.dailyAllowance ?? 0, this.meter.nextTryAt());
    }
    return parseAlotMatter(this.checked(http, url, body));
  }

  /** The spacing of this key's calls (the adapter's pace), for a walk's ETA. */
  get callSpacingMs(): number {
    return this.limiter.minIntervalMs;
  }

  /**
   * company.json for one company: its Security, `null` when OpenDART has no data (status 013,
   * retried next run), or `'skip'` when it is not on KOSPI/KOSDAQ (known, never retried).
   */
  async company(http: HttpClient, corp: CorpCode): Promise<Security | 'skip' | null> {
    const url = this.url('company.json', { corp_code: corp.corpCode });
    const body = await http.getJson(url);
    if (parseDartEnvelope(body)?.status === DART_STATUS.RATE_LIMIT) {
      // OpenDART counts by its own clock: its word ends the day's calls, whatever we counted.
      this.meter.spend();
      throw new AllowanceSpent(this.name, this.meter.callsToday, this.meter.dailyAllowance ?? 0, this.meter.nextTryAt());
    }
    if (this.checked(http, url, body).status === DART_STATUS.NO_DATA) return null;
    return parseCompany(body, corp.stockCode) ?? 'skip';
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = this.client(ctx);
    const startedMs = this.meter.now().getTime();
    this.meter.restore(ctx.calls);
    if (this.meter.remaining() === 0 && ctx.cursor !== null) {
      // The day's allowance was used by an earlier run: nothing to ask until it renews.
      ctx.progress?.({ phase: 'paced', callsToday: this.meter.callsToday, dailyAllowance: this.meter.dailyAllowance, nextTryAt: this.meter.nextTryAt(), note: 'the day\'s allowance is used' });
      return { data: {}, cursor: ctx.cursor, calls: this.meter.state() };
    }
    const to = ctx.range?.to ?? ctx.asOf;
    const cursor = readCursor(ctx.cursor);
    if (ctx.cursor !== null && cursor === null) ctx.log.warn('opendart: unreadable cursor, starting afresh');
    // Re-read the cursor day itself: filings received late that day were not yet listed.
    const from = ctx.range?.from ?? cursor?.date ?? addDays(ctx.asOf, -(this.config.firstRunDays ?? 90));
    const skipped: Record<string, number> = {};
    const skip = (reason: string): void => {
      skipped[reason] = (skipped[reason] ?? 0) + 1;
    };
    const listed = await this.listedCompanies(http);
    const { filings, unreadable } = await this.periodicFilings(http, from, to);
    if (unreadable > 0) skipped['filing list row: not a December-year periodic report'] = unreadable;
    // One fetch per company and period: the API returns the latest filing's figures.
    const unique = new Map<string, PeriodicFiling>();
    for (const f of filings) {
      // KONEX (N) and other (E) filers are outside the universe, as is a filer with no stock code.
      if (exchangeOfCorpCls(f.corpCls) === null) skip(`filing of a ${f.corpCls === 'N' ? 'KONEX' : 'non-KOSPI/KOSDAQ'} filer`);
      else if (!listed.has(f.corpCode) && !/^\d{6}$/.test(f.stockCode)) skip('filing of a filer without a stock code');
      else unique.set(`${f.corpCode}:${f.fiscalYear}:${f.reprtCode}`, f);
    }
    const known = new Set(cursor?.known ?? []);
    const reports: FinancialReport[] = [];
    // Filers whose company.json has not been read (not yet, or it answers 013) are placed from
    // the filing list and corpCode.xml, so their statements are kept: one company the store
    // cannot place must not make it refuse the whole run, every hour.
    const placed = new Map<string, Security>();
    const depositShares = new Map<string, number | null>();
    for (const filing of unique.values()) {
      const company = listed.get(filing.corpCode);
      const code = company?.stockCode ?? filing.stockCode;
      const fetched = await this.statements(http, filing, code);
      if (!fetched) {
        skip('filing without statements (status 013 for CFS and OFS)');
        ctx.log.warn('opendart: no statements for filing', { corpCode: filing.corpCode, rceptNo: filing.rceptNo });
        continue;
      }
      reports.push({ ...fetched.report, dividendPerShare: await this.dividendPerShare(http, filing) });
      depositShares.set(code, fetched.depositShare);
      if (!known.has(filing.corpCode)) {
        const security = placedFiler(filing, company);
        if (security) placed.set(security.code, security);
      }
    }
    const filed = new Set([...unique.values()].map((f) => f.corpCode));
    const fresh = await this.newCompanies(http, ctx, listed, known, filed, skip, startedMs);
    // company.json, where it answered, wins over the placement (same code, one row per write).
    for (const s of fresh.securities) placed.set(s.code, s);
    // A bank holding company (KSIC 64992, Unclassified by code) is told by its deposits (`sectorByDeposits`).
    const securities = [...placed.values()].map((s) => {
      const sector = sectorByDeposits(s.sector, depositShares.get(s.code) ?? null);
      return sector === s.sector ? s : { ...s, sector };
    });
    ctx.log.info('opendart: ingested', { filings: filings.length, reports: reports.length, securities: securities.length, from, to });
    return { data: { reports, securities }, cursor: writeCursor({ date: to, known: fresh.known }), skipped, calls: this.meter.state() };
  }

  /**
   * company.json for listed companies not yet known, those with a filing in this run first,
   * all of them (or `companiesPerRun`) at the paced rate, reported as progress in companies.
   * Out of the day's allowance it stops with those it has: they are known, the rest follow
   * after the renewal. Returns their Securities and the updated known set (delisted companies
   * dropped).
   */
  private async newCompanies(
    http: HttpClient,
    ctx: SourceContext,
    listed: Map<string, CorpCode>,
    known: Set<string>,
    filed: Set<string>,
    skip: (reason: string) => void,
    startedMs: number,
  ): Promise<{ securities: Security[]; known: string[] }> {
    const next = [...known].filter((c) => listed.has(c));
    const pending = [...listed.values()]
      .filter((c) => !known.has(c.corpCode))
      .sort((a, b) => Number(filed.has(b.corpCode)) - Number(filed.has(a.corpCode)) || a.corpCode.localeCompare(b.corpCode));
    const limit = this.config.companiesPerRun ?? pending.length;
    const securities: Security[] = [];
    const asked = pending.slice(0, limit);
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'companies', total: asked.length, callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs });
    plan.start('company records and sectors (company.json)');
    const budget = this.config.runBudgetMs ?? 480_000;
    for (const corp of asked) {
      if (budget > 0 && this.meter.now().getTime() - startedMs >= budget) {
        plan.rest(`company records continue next run (${asked.length - plan.unitsDone} left)`);
        ctx.log.info('opendart: company records continue next run', { left: asked.length - plan.unitsDone });
        return { securities, known: next };
      }
      let result: Security | 'skip' | null;
      try {
        result = await this.company(http, corp);
      } catch (err) {
        if (!(err instanceof AllowanceSpent)) throw err;
        plan.paced();
        ctx.log.warn('opendart: the day\'s allowance is used; company records resume after the renewal', {
          callsToday: err.callsToday, dailyAllowance: err.dailyAllowance, left: asked.length - plan.unitsDone, nextTryAt: err.nextTryAt.toISOString(),
        });
        return { securities, known: next };
      }
      plan.step();
      if (result === null) {
        skip('company.json status 013 (asked again next run)');
        ctx.log.warn('opendart: no company.json data', { corpCode: corp.corpCode });
        continue;
      }
      next.push(corp.corpCode);
      if (result !== 'skip') securities.push(result);
    }
    plan.finish();
    if (pending.length > limit) ctx.log.info('opendart: companies left for later runs', { left: pending.length - limit });
    return { securities, known: next };
  }
}
