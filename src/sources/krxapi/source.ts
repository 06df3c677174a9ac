// KRX Open API adapter: whole-market daily prices, listed shares and market cap of KOSPI and
// KOSDAQ, one call a market and date (stk_bydd_trd, ksq_bydd_trd), walked by date like FSC's
// (src/sources/shared/date-walk.ts): the sessions after the cursor first, then back through the
// history window a bounded number of dates a run. A run that walks forward also reads the
// listing services of both markets once (stk_isu_base_info, ksq_isu_base_info) for the English
// names. Every call is counted against the key's documented 10,000 a day.

import type { DailyBar, Security } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { AllowanceSpent, CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { planWalk, readWalkCursor, walkDates, writeWalkCursor, type WalkCursor } from '../shared/date-walk.js';
import { MarketRows } from '../shared/market-rows.js';
import { addDays, compactDate, weekdaysBetween } from '../shared/parse.js';
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
    // Only sessions closed at `now` (15:30 Seoul); a date not yet published answers no rows and is asked again.
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? ctx.asOf);
    const rows = new MarketRows();
    const perCallMs = this.limiter.minIntervalMs;
    const callsPerUnit = MARKET_SERVICES.length;

    if (ctx.range) {
      // A backfill: every date of the range, newest first; the incremental cursor is not moved.
      const dates = weekdaysBetween(ctx.range.from < FIRST_DATE ? FIRST_DATE : ctx.range.from, to).reverse();
      const plan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: dates.length, callsPerUnit, perCallMs });
      plan.start('backfill by date');
      try {
        for (const d of dates) {
          await this.date(http, d, rows.take);
          plan.step();
        }
        plan.finish();
      } catch (err) {
        if (!(err instanceof AllowanceSpent)) throw err;
        plan.paced();
      }
      ctx.log.info('krx-openapi: backfill', { bars: rows.bars.length, days: plan.unitsDone, from: ctx.range.from, to });
      return { data: { bars: rows.bars, securities: rows.securities() }, cursor: ctx.cursor ?? writeWalkCursor({ latest: null, back: null, complete: false }), calls: this.meter.state() };
    }

    let cursor = readWalkCursor(ctx.cursor);
    if (cursor === null) {
      ctx.log.warn('krx-openapi: unreadable cursor, starting afresh');
      cursor = { latest: null, back: null, complete: false };
    }
    const back = addDays(ctx.asOf, -(this.config.historyDays ?? 3_653));
    const historyFrom = back < FIRST_DATE ? FIRST_DATE : back;
    const walk = planWalk(cursor, { to, historyFrom, maxDays: this.config.maxDaysPerRun ?? 250 });
    const next: WalkCursor = { ...cursor };
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: walk.total, callsPerUnit, perCallMs, doneBefore: walk.doneBefore });
    plan.start(cursor.complete ? undefined : `prices and listed shares by date, back to ${historyFrom}`);
    let listing = new Map<string, ListingRow>();
    try {
      const ended = await walkDates(walk, next, {
        historyFrom,
        emptyDaysToStop: this.config.emptyDaysToStop ?? 10,
        rows: (d) => this.date(http, d, rows.take),
        step: () => plan.step(),
      });
      if (ended) ctx.log.info(`krx-openapi: ${ended}`);
      // The English names, from the listings of the newest date with rows (two calls a run that found one).
      if (next.latest !== null && next.latest !== cursor.latest) listing = await this.listing(http, next.latest);
      if (next.complete) plan.finish();
      else plan.rest(`the history walk continues next run from ${next.back ?? to}`);
    } catch (err) {
      if (!(err instanceof AllowanceSpent)) throw err;
      plan.paced();
      ctx.log.warn('krx-openapi: the day\'s allowance is used; the walk resumes after the renewal', { callsToday: err.callsToday, nextTryAt: err.nextTryAt.toISOString() });
    }
    const securities = rows.securities().map((s) => {
      const nameEn = listing.get(s.code)?.nameEn;
      return nameEn ? { ...s, nameEn } : s;
    });
    ctx.log.info('krx-openapi: ingested', { bars: rows.bars.length, latest: next.latest, back: next.back, complete: next.complete, listed: listing.size });
    return { data: { bars: rows.bars, securities }, cursor: writeWalkCursor(next), calls: this.meter.state() };
  }
}
