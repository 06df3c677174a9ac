// SEC EDGAR adapter. First run: every company in company_tickers.json (or SEC_TICKERS).
// Later runs: only companies that filed a periodic form (10-Q/10-K, 20-F/40-F, 6-K, or an
// amendment) since the cursor, read from the EDGAR daily form indexes. SEC asks for a descriptive User-Agent and at most 10 requests
// a second (https://www.sec.gov/os/accessing-edgar-data).

import type { FinancialReport, FormerName, Security } from '../../domain/model.js';
import type { UsdSeries } from '../../domain/reference-rates.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter, SourceHttpError } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate, weekdaysBetween } from '../shared/parse.js';
import {
  cik10,
  companiesOf,
  parseCompanyTickers,
  parseDailyFormIndex,
  parseSubmissions,
  SEC_SKIP,
  secCompany,
  SEC_UPSTREAM,
  SOURCE_NAME,
  type SecCompany,
  type TickerEntry,
} from './parse.js';

export interface SecConfig extends HttpTuning {
  /** "Company Name admin@example.com": SEC blocks requests without one. */
  userAgent: string;
  /** data.sec.gov (XBRL APIs, submissions). */
  dataBaseUrl?: string;
  /** www.sec.gov (company_tickers.json, Archives). */
  wwwBaseUrl?: string;
  /** Limit the universe to these tickers (comma-separated in SEC_TICKERS). */
  tickers?: readonly string[];
  requestsPerSecond?: number;
  /** A gap longer than this many days is treated as a first run. */
  maxIndexDays?: number;
}

export class SecSource implements Source {
  readonly name = SOURCE_NAME;
  /**
   * A first pass through the API (no bulk archives) reads ~6,000 companies at 2 requests each,
   * 10 a second: about 20 minutes, which the refresh's ten-minute default would cut.
   */
  readonly timeoutMs = 45 * 60_000;
  private readonly limiter: RateLimiter;
  private readonly dataBase: string;
  private readonly wwwBase: string;

  constructor(private readonly config: SecConfig) {
    this.limiter = RateLimiter.shared(SEC_UPSTREAM, Math.min(config.requestsPerSecond ?? 10, 10));
    this.dataBase = (config.dataBaseUrl ?? 'https://data.sec.gov').replace(/\/+$/, '');
    this.wwwBase = (config.wwwBaseUrl ?? 'https://www.sec.gov').replace(/\/+$/, '');
  }

  static fromEnv(env: Record<string, string | undefined>): SecSource | null {
    const userAgent = env['SEC_USER_AGENT']?.trim();
    if (!userAgent) return null;
    const tickers = env['SEC_TICKERS']?.split(',').map((t) => t.trim().toUpperCase()).filter(Boolean);
    return new SecSource({
      userAgent,
      dataBaseUrl: env['SEC_DATA_BASE_URL'] || undefined,
      wwwBaseUrl: env['SEC_BASE_URL'] || undefined,
      tickers: tickers && tickers.length > 0 ? tickers : undefined,
    });
  }

  private client(ctx: SourceContext): HttpClient {
    return clientForRun(this.name, ctx, this.config, { limiter: this.limiter, headers: { 'user-agent': this.config.userAgent, accept: 'application/json, text/plain' } });
  }

  async tickers(http: HttpClient): Promise<TickerEntry[]> {
    const url = `${this.wwwBase}/files/company_tickers.json`;
    const parsed = parseCompanyTickers(await http.getJson(url));
    if (parsed === null) throw http.parseError('company_tickers.json is not an object', url);
    return parsed;
  }

  /** CIKs with a periodic filing on a day in (from, to]; null when the gap is too long to page through. */
  async changedCiks(http: HttpClient, from: string, to: string): Promise<Set<number> | null> {
    const days = weekdaysBetween(addDays(from, 1), to);
    if (days.length > (this.config.maxIndexDays ?? 30)) return null;
    const ciks = new Set<number>();
    for (const day of days) {
      const quarter = Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1;
      const url = `${this.wwwBase}/Archives/edgar/daily-index/${day.slice(0, 4)}/QTR${quarter}/form.${compactDate(day)}.idx`;
      // Holidays have no index file.
      const res = await http.request(url, { acceptStatus: [403, 404] });
      if (res.status !== 200) continue;
      for (const cik of parseDailyFormIndex(new TextDecoder().decode(res.body))) ciks.add(cik);
    }
    return ciks;
  }

  /** One company through the API: its companyfacts and submissions, combined by `secCompany`. */
  async company(http: HttpClient, entry: TickerEntry, usdRates?: ReadonlyMap<string, UsdSeries>): Promise<SecCompany> {
    const factsUrl = `${this.dataBase}/api/xbrl/companyfacts/CIK${cik10(entry.cik)}.json`;
    // Companies without XBRL financials (funds, new registrants) have no companyfacts: 404.
    const res = await http.request(factsUrl, { acceptStatus: [404] });
    if (res.status === 404) return { kind: 'skipped', reason: SEC_SKIP.noFacts };
    const facts = http.parseJson(new TextDecoder().decode(res.body), factsUrl);
    const subUrl = `${this.dataBase}/submissions/CIK${cik10(entry.cik)}.json`;
    // Without submissions the company is still placed (exchange, sector and year end from the facts).
    const subRes = await http.request(subUrl, { acceptStatus: [404] });
    const placement = subRes.status === 404 ? null : parseSubmissions(http.parseJson(new TextDecoder().decode(subRes.body), subUrl));
    return secCompany(entry, facts, placement, usdRates);
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = this.client(ctx);
    const to = ctx.range?.to ?? ctx.asOf;
    const byCik = companiesOf(await this.tickers(http), this.config.tickers);
    const changed = ctx.cursor && !ctx.range ? await this.changedCiks(http, ctx.cursor, to) : null;
    const targets = [...byCik.values()].filter((t) => changed === null || changed.has(t.cik));
    // The reference rates stored so far: a foreign filer without a USD translation of its own is converted at them.
    const usdRates = ctx.usdRates && targets.length > 0 ? await ctx.usdRates() : undefined;
    const reports: FinancialReport[] = [];
    const securities: Security[] = [];
    const formerNames: FormerName[] = [];
    const skipped: Record<string, number> = {};
    const skip = (reason: string, n = 1): void => {
      skipped[reason] = (skipped[reason] ?? 0) + n;
    };
    for (const entry of targets) {
      let result: SecCompany;
      try {
        result = await this.company(http, entry, usdRates);
      } catch (err) {
        // One company's unreadable document is that company's problem, not the run's; an HTTP
        // failure (rate limit, outage) still fails the run so its cursor does not move.
        if (err instanceof SourceHttpError && err.kind === 'parse') {
          skip(SEC_SKIP.unreadable);
          ctx.log.warn('sec: company skipped', { cik: entry.cik, error: err.message.slice(0, 120) });
          continue;
        }
        throw err;
      }
      if (result.kind === 'skipped') {
        skip(result.reason);
        continue;
      }
      for (const [reason, n] of Object.entries(result.skipped)) skip(reason, n);
      securities.push(result.security);
      formerNames.push(...result.formerNames);
      reports.push(
        ...result.reports.filter((r) => !ctx.range || (r.disclosedOn >= ctx.range.from && r.disclosedOn <= ctx.range.to)),
      );
    }
    ctx.log.info('sec: ingested', { companies: targets.length, reports: reports.length });
    return { data: { reports, securities, formerNames }, cursor: to, skipped };
  }
}
