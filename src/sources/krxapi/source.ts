// KRX Open API adapter: whole-market daily prices, listed shares and market cap of KOSPI and
// KOSDAQ, one call a market and date (stk_bydd_trd, ksq_bydd_trd), walked by date like FSC's
// (src/sources/shared/date-walk.ts): the sessions after the cursor first, then back through the
// history window a bounded number of dates a run. A run that walks forward also reads the
// listing services of both markets once (stk_isu_base_info, ksq_isu_base_info) for the English
// names. Every call is counted against the key's documented 10,000 a day.

import type { DailyBar, Security } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { CallMeter } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { walkMarket } from '../shared/market-walk.js';
import { addDays, compactDate } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { MARKET_SERVICES, outBlock, parseListing, parseTradeRow, refusal, SOURCE_NAME, type ListingRow } from './parse.js';

/** The first date the daily trading services hold ("'10년01월04일 데이터부터 제공"). */
export const FIRST_DATE = '2010-01-04';

export interface KrxOpenApiConfig extends HttpTuning {
  /** The AUTH_KEY issued on openapi.krx.co.kr (KRX_OPENAPI_KEY). */
  authKey: string;
  /** Default `https://data-dbg.krx.co.kr/svc/apis`. */
  baseUrl?: string;
  /** No per-second limit is published; 2 a second is the default spacing. */
  requestsPerSecond?: number;
  /** Calls a Seoul day (the terms' 10,000 a key). */
  dailyAllowance?: number;
  /** Calendar days of history walked back (default 3,653, ten years; never before 2010-01-04). */
  historyDays?: number;
  /** Dates a run at most (default 250: 500 calls, ~725,000 bars in one write). */
  maxDaysPerRun?: number;
  /** Weekdays in a row without rows, walking back after rows were seen, that end the history (default 10). */
  emptyDaysToStop?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

export class KrxOpenApiSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  readonly meter: CallMeter;

  constructor(private readonly config: KrxOpenApiConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://data-dbg.krx.co.kr/svc/apis').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 2);
    this.meter = new CallMeter(SOURCE_NAME, config.dailyAllowance ?? 10_000, config.clock);
  }

  /** KRX_OPENAPI_KEY; KRX_OPENAPI_BASE_URL, KRX_OPENAPI_DAILY_ALLOWANCE and KRX_OPENAPI_HISTORY_DAYS optional. */
  static fromEnv(env: Record<string, string | undefined>): KrxOpenApiSource | null {
    const authKey = env['KRX_OPENAPI_KEY']?.trim();
    if (!authKey) return null;
    const positive = (name: string): number | undefined => {
      const n = Number(env[name]);
      return Number.isInteger(n) && n > 0 ? n : undefined;
    };
    const dailyAllowance = positive('KRX_OPENAPI_DAILY_ALLOWANCE');
    const historyDays = positive('KRX_OPENAPI_HISTORY_DAYS');
    return new KrxOpenApiSource({
      authKey,
      baseUrl: env['KRX_OPENAPI_BASE_URL'] || undefined,
      ...(dailyAllowance ? { dailyAllowance } : {}),
      ...(historyDays ? { historyDays } : {}),
    });
  }

  /** One service's rows for one date; a refusal (HTTP 401) says which: the key, or the service's approval. */
  private async rows(http: HttpClient, service: string, date: string): Promise<Record<string, unknown>[]> {
    const url = `${this.baseUrl}/${service}?basDd=${compactDate(date)}`;
    const res = await http.request(url, { acceptStatus: [401] });
    const text = new TextDecoder('utf-8').decode(res.body);
    const body = http.parseJson(text, url);
    const refused = refusal(body);
    if (refused !== null) {
      const hint = /api call/i.test(refused.message)
        ? `the key has no approval for ${service}: apply for the service on openapi.krx.co.kr`
        : 'check KRX_OPENAPI_KEY';
      throw http.upstreamError(`KRX Open API refused ${service}: ${refused.code} ${refused.message} (${hint})`, url);
    }
    const rows = outBlock(body);
    if (rows === null) throw http.parseError(`no OutBlock_1: ${text.slice(0, 120)}`, url);
    return rows;
  }

  /** Every KOSPI and KOSDAQ row of one date, pushed into `take`; the number of rows read. */
  private async date(http: HttpClient, date: string, take: (bar: DailyBar, security: Security) => void): Promise<number> {
    let read = 0;
    for (const m of MARKET_SERVICES) {
      const rows = await this.rows(http, m.trades, date);
      read += rows.length;
      for (const r of rows) {
        const row = parseTradeRow(r, date);
        if (row) take(row.bar, row.security);
      }
    }
    return read;
  }

  /** Both markets' listings as of `date`, by code; empty when the date has none (a holiday). */
  private async listing(http: HttpClient, date: string): Promise<Map<string, ListingRow>> {
    const all = new Map<string, ListingRow>();
    for (const m of MARKET_SERVICES) for (const [code, row] of parseListing(await this.rows(http, m.listing, date))) all.set(code, row);
    return all;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, {
      limiter: this.limiter,
      meter: this.meter,
      secrets: [this.config.authKey],
      headers: { AUTH_KEY: this.config.authKey },
      // A day of KOSDAQ is ~780 KB and answers in about 2 s.
      defaults: { timeoutMs: 60_000 },
    });
    this.meter.restore(ctx.calls);
    const back = addDays(ctx.asOf, -(this.config.historyDays ?? 3_653));
    let listing = new Map<string, ListingRow>();
    const { rows, cursor } = await walkMarket(ctx, {
      name: this.name,
      meter: this.meter,
      perCallMs: this.limiter.minIntervalMs,
      callsPerDate: MARKET_SERVICES.length,
      // Only sessions closed at `now` (15:30 Seoul); a date not yet published answers no rows and is asked again.
      to: closedSessionsThrough('KR', ctx, ctx.range?.to ?? ctx.asOf),
      historyFrom: back < FIRST_DATE ? FIRST_DATE : back,
      firstDate: FIRST_DATE,
      maxDaysPerRun: this.config.maxDaysPerRun ?? 250,
      emptyDaysToStop: this.config.emptyDaysToStop ?? 10,
      date: (d, take) => this.date(http, d, take),
      // The English names, from the listings of the newest date with rows (two calls a run that found one).
      afterWalk: async (next, prior) => {
        if (next.latest !== null && next.latest !== prior.latest) listing = await this.listing(http, next.latest);
      },
    });
    const securities = rows.securities().map((s) => {
      const nameEn = listing.get(s.code)?.nameEn;
      return nameEn ? { ...s, nameEn } : s;
    });
    return { data: { bars: rows.bars, securities }, cursor, calls: this.meter.state() };
  }
}
