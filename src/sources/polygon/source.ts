// US daily prices from Polygon.io grouped daily aggregates: one request per trading day for
// the whole market, walking dates: the sessions after the cursor first, then back through the
// history the key's plan allows (free: 5 requests a minute, two years), newest first, as many
// dates a run as fit the refresh's ten-minute source timeout at the plan's rate
// (shared/date-walk.ts). Shares come from SEC frames (three SEC requests a run), so
// SEC_USER_AGENT is required.

import type { DailyBar } from '../../domain/model.js';
import { clientForRun, type HttpTuning, RateLimiter } from '../http.js';
import { CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { planWalk, readWalkCursor, writeWalkCursor, type WalkCursor } from '../shared/date-walk.js';
import { addDays, weekdaysBetween } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { listedShares } from '../../domain/ads.js';
import { parseCompanyTickers, SEC_UPSTREAM } from '../sec/parse.js';
import { parseGrouped, parseSharesFrame, SOURCE_NAME, toDailyBars } from './parse.js';

export type PolygonPlan = 'free' | 'paid';

/**
 * What each plan allows (polygon.io/pricing, Stocks): Basic (free) 5 API calls a minute and two
 * years of history; the paid plans unlimited calls (paced here at 10 a second) and five
 * (Starter) to 20+ years; ten years is the history the service uses.
 */
export const POLYGON_PLANS: Record<PolygonPlan, { requestsPerMinute: number; historyDays: number }> = {
  free: { requestsPerMinute: 5, historyDays: 730 },
  paid: { requestsPerMinute: 600, historyDays: 3_653 },
};

/**
 * A run's dates take at most this long at the plan's rate (free: 200 days a run, 12 s apart), so a
 * run ends well within the hour before the next scheduled one; the source's own timeout leaves
 * five minutes more for the SEC share counts and the write.
 */
const RUN_BUDGET_MS = 40 * 60_000;

/**
 * A first run (no cursor) asks only the latest 30 weekdays: six minutes on the free plan, and
 * enough sessions for every calculation's window (the supply input's 20 trading days), so a first
 * start serves every US stock with a price and a score soon; the history walk follows in the
 * next runs at the plan's pace.
 */
const FIRST_RUN_DAYS = 30;

export interface PolygonConfig extends HttpTuning {
  apiKey: string;
  baseUrl?: string;
  secUserAgent: string;
  secDataBaseUrl?: string;
  secWwwBaseUrl?: string;
  /** The key's plan: its rate and history (default free). */
  plan?: PolygonPlan;
  /** Overrides the plan's rate. */
  requestsPerMinute?: number;
  /** Overrides the plan's history, in calendar days back from the newest session. */
  historyDays?: number;
  /** Dates a run at most; default what fits 40 minutes at the rate (200 on the free plan), at most 250. */
  maxDaysPerRun?: number;
  /** Dates a first run asks (no cursor yet; default 30 weekdays), so a first start prices every stock soon. */
  firstRunDays?: number;
  /** The request spacing (tests inject one that does not wait, keeping the plan's interval for the ETA). */
  limiter?: RateLimiter;
}

export class PolygonSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  readonly limiter: RateLimiter;
  private readonly secLimiter = RateLimiter.shared(SEC_UPSTREAM, 10);
  /** Polygon documents no daily cap: the meter counts calls for the progress report. */
  readonly meter = new CallMeter(SOURCE_NAME, null);
  readonly historyDays: number;
  readonly maxDaysPerRun: number;
  readonly timeoutMs = RUN_BUDGET_MS + 5 * 60_000;

  constructor(private readonly config: PolygonConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://api.polygon.io').replace(/\/+$/, '');
    const plan = POLYGON_PLANS[config.plan ?? 'free'];
    const perMinute = config.requestsPerMinute ?? plan.requestsPerMinute;
    this.limiter = config.limiter ?? new RateLimiter(perMinute > 0 ? Math.ceil(60_000 / perMinute) : 0);
    this.historyDays = config.historyDays ?? plan.historyDays;
    const interval = this.limiter.minIntervalMs;
    this.maxDaysPerRun = config.maxDaysPerRun ?? (interval > 0 ? Math.max(1, Math.min(250, Math.floor(RUN_BUDGET_MS / interval))) : 250);
  }

  /**
   * US_PRICES_API_KEY and SEC_USER_AGENT; US_PRICES_PLAN `free` (default) or `paid`;
   * US_PRICES_REQUESTS_PER_MINUTE and US_PRICES_HISTORY_DAYS override the plan's figures.
   */
  static fromEnv(env: Record<string, string | undefined>): PolygonSource | null {
    const apiKey = env['US_PRICES_API_KEY']?.trim();
    const secUserAgent = env['SEC_USER_AGENT']?.trim();
    if (!apiKey || !secUserAgent) return null;
    const positive = (name: string): number | undefined => {
      const n = Number(env[name]);
      return Number.isFinite(n) && n > 0 ? n : undefined;
    };
    const planName = env['US_PRICES_PLAN']?.trim().toLowerCase();
    const rpm = positive('US_PRICES_REQUESTS_PER_MINUTE');
    const historyDays = positive('US_PRICES_HISTORY_DAYS');
    return new PolygonSource({
      apiKey,
      secUserAgent,
      baseUrl: env['US_PRICES_BASE_URL'] || undefined,
      secDataBaseUrl: env['SEC_DATA_BASE_URL'] || undefined,
      secWwwBaseUrl: env['SEC_BASE_URL'] || undefined,
      plan: planName === 'paid' ? 'paid' : 'free',
      ...(rpm ? { requestsPerMinute: rpm } : {}),
      ...(historyDays ? { historyDays: Math.floor(historyDays) } : {}),
    });
  }

  /**
   * Ticker -> shares outstanding (in ADSs for an ADS ticker), from SEC's frames of the two latest
   * calendar quarters: the cover page's dei:EntityCommonStockSharesOutstanding first. A company
   * with several share classes tags its cover count per class (a dimension), which frames leave
   * out (Palantir, AppLovin, Figma): for a company the cover frames do not hold, the balance
   * sheet's us-gaap:CommonStockSharesOutstanding (every class together), then the quarter's
   * us-gaap:WeightedAverageNumberOfSharesOutstandingBasic (the EPS denominator, every class that
   * shares in earnings). A company none of them holds (its every count dimensional, e.g. Visa's
   * as-converted classes) gets no bar.
   */
  async shares(ctx: SourceContext, asOf: string): Promise<Map<string, number>> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.secLimiter, headers: { 'user-agent': this.config.secUserAgent } });
    const www = (this.config.secWwwBaseUrl ?? 'https://www.sec.gov').replace(/\/+$/, '');
    const data = (this.config.secDataBaseUrl ?? 'https://data.sec.gov').replace(/\/+$/, '');
    const tickersUrl = `${www}/files/company_tickers.json`;
    const tickers = parseCompanyTickers(await http.getJson(tickersUrl));
    if (tickers === null) throw http.parseError('company_tickers.json is not an object', tickersUrl);
    const y = Number(asOf.slice(0, 4));
    const q = Math.floor((Number(asOf.slice(5, 7)) - 1) / 3) + 1;
    // The current quarter's frame fills in as filings arrive; the previous one is complete.
    const quarters = [[q === 1 ? y - 1 : y, q === 1 ? 4 : q - 1], [y, q]] as const;
    /** The latest count per CIK of one concept's frames over the two quarters (`I`: instants). */
    const frames = async (concept: string, instant: boolean): Promise<Map<number, { end: string; val: number }>> => {
      const latest = new Map<number, { end: string; val: number }>();
      for (const [yy, qq] of quarters) {
        const url = `${data}/api/xbrl/frames/${concept}/shares/CY${yy}Q${qq}${instant ? 'I' : ''}.json`;
        const res = await http.request(url, { acceptStatus: [404] });
        if (res.status === 404) continue;
        const frame = parseSharesFrame(http.parseJson(new TextDecoder().decode(res.body), url));
        if (frame === null) throw http.parseError('frame without data', url);
        for (const [cik, v] of frame) {
          const prev = latest.get(cik);
          if (!prev || v.end > prev.end) latest.set(cik, v);
        }
      }
      return latest;
    };
    const counts = await frames('dei/EntityCommonStockSharesOutstanding', true);
    const missing = () => tickers.some((t) => !counts.has(t.cik));
    for (const [concept, instant] of [['us-gaap/CommonStockSharesOutstanding', true], ['us-gaap/WeightedAverageNumberOfSharesOutstandingBasic', false]] as const) {
      if (!missing()) break;
      for (const [cik, v] of await frames(concept, instant)) if (!counts.has(cik)) counts.set(cik, v);
    }
    const out = new Map<string, number>();
    for (const t of tickers) {
      const v = counts.get(t.cik);
      // The frame's count is ordinary shares; an ADS ticker's price is per ADS (src/domain/ads.ts).
      if (v && !out.has(t.ticker)) out.set(t.ticker, listedShares(t.ticker, v.val));
    }
    return out;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets: [this.config.apiKey], defaults: { timeoutMs: 60_000, backoffMs: 15_000 } });
    this.meter.restore(ctx.calls);
    // asOf is a Seoul date; the US session of that date has not closed yet, nor has the one
    // before it until 16:00 in New York (05:00 or 06:00 in Seoul): with `now`, only sessions
    // closed by then are asked for (a partial day would move the cursor past it).
    const to = closedSessionsThrough('US', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    let cursor = ctx.range ? null : readWalkCursor(ctx.cursor);
    if (!ctx.range && cursor === null) {
      ctx.log.warn('polygon: unreadable cursor, starting afresh');
      cursor = { latest: null, back: null, complete: false };
    }
    const historyFrom = addDays(to, -this.historyDays);
    // A backfill walks its range, newest first, in full; the incremental cursor is not moved.
    const walk = cursor
      ? planWalk(cursor, { to, historyFrom, maxDays: cursor.latest === null ? Math.min(this.maxDaysPerRun, this.config.firstRunDays ?? FIRST_RUN_DAYS) : this.maxDaysPerRun })
      : { forward: [], backward: weekdaysBetween(ctx.range?.from ?? to, to).reverse(), total: 0, doneBefore: 0 };
    if (!cursor) walk.total = walk.backward.length;
    const next: WalkCursor = cursor ? { ...cursor } : { latest: null, back: null, complete: false };
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: walk.total, callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs, doneBefore: walk.doneBefore });
    const bars: DailyBar[] = [];
    const skipped: Record<string, number> = {};
    if (walk.forward.length + walk.backward.length > 0) {
      const shares = await this.shares(ctx, to);
      plan.start(`grouped daily bars, one day a call, back to ${historyFrom}`);
      const day = async (date: string): Promise<'rows' | 'empty' | 'outside plan'> => {
        const url = `${this.baseUrl}/v2/aggs/grouped/locale/us/market/stocks/${date}?adjusted=true&apiKey=${encodeURIComponent(this.config.apiKey)}`;
        const res = await http.request(url, { acceptStatus: [403] });
        const body = http.parseJson(new TextDecoder().decode(res.body), url);
        const parsed = parseGrouped(body);
        if (res.status === 403) {
          // A date before the plan's history: `{"status":"NOT_AUTHORIZED","message":"Your plan doesn't include this data timeframe..."}`.
          if (parsed?.status === 'NOT_AUTHORIZED') return 'outside plan';
          throw http.upstreamError(`HTTP 403 status ${parsed?.status ?? '?'}`, url);
        }
        if (parsed === null) throw http.parseError('no status field', url);
        if (parsed.status !== 'OK' && parsed.status !== 'DELAYED') throw http.upstreamError(`status ${parsed.status}`, url);
        const result = toDailyBars(date, parsed.bars, shares);
        bars.push(...result.bars);
        for (const [reason, n] of Object.entries(result.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
        if (Object.keys(result.skipped).length > 0) ctx.log.info('polygon: rows skipped', { date, skipped: result.skipped });
        return parsed.bars.length > 0 ? 'rows' : 'empty';
      };
      const seen = (d: string): void => {
        if (next.latest === null || d > next.latest) next.latest = d;
      };
      for (const d of walk.forward) {
        const got = await day(d);
        if (got === 'outside plan') throw http.upstreamError(`the plan answered NOT_AUTHORIZED for the new session ${d}`, this.baseUrl);
        // Cursor: the last date fetched (a holiday is fetched, and done).
        seen(d);
        plan.step();
      }
      for (const d of walk.backward) {
        if ((await day(d)) === 'outside plan') {
          ctx.log.info('polygon: the plan\'s history ends here', { before: addDays(d, 1) });
          next.complete = true;
          break;
        }
        if (next.latest === null) seen(d);
        next.back = d;
        plan.step();
      }
      if (next.back !== null && weekdaysBetween(historyFrom, addDays(next.back, -1)).length === 0) next.complete = true;
      if (next.complete || ctx.range) plan.finish();
      else plan.rest(`${this.maxDaysPerRun} days a run at the plan's rate; the history walk continues next run from ${next.back ?? to}`);
    }
    const outCursor = ctx.range ? (ctx.cursor ?? writeWalkCursor(next)) : writeWalkCursor(next);
    return { data: { bars }, cursor: outCursor, calls: this.meter.state(), ...(Object.keys(skipped).length > 0 ? { skipped } : {}) };
  }
}
