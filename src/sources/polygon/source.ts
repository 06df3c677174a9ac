// US daily prices from Polygon.io grouped daily aggregates: one request per trading day for
// the whole market. The free plan allows 5 requests a minute, hence the default pacing.
// Shares come from SEC frames (three SEC requests a run), so SEC_USER_AGENT is required.

import type { DailyBar } from '../../domain/model.js';
import { clientForRun, type HttpTuning, RateLimiter } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, weekdaysBetween } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { parseCompanyTickers } from '../sec/parse.js';
import { parseGrouped, parseSharesFrame, SOURCE_NAME, toDailyBars } from './parse.js';


export interface PolygonConfig extends HttpTuning {
  apiKey: string;
  baseUrl?: string;
  secUserAgent: string;
  secDataBaseUrl?: string;
  secWwwBaseUrl?: string;
  requestsPerMinute?: number;
  maxDaysPerRun?: number;
  firstRunDays?: number;
}

export class PolygonSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  private readonly secLimiter = RateLimiter.perSecond(10);

  constructor(private readonly config: PolygonConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://api.polygon.io').replace(/\/+$/, '');
    const perMinute = config.requestsPerMinute ?? 5;
    this.limiter = new RateLimiter(perMinute > 0 ? Math.ceil(60_000 / perMinute) : 0);
  }

  static fromEnv(env: Record<string, string | undefined>): PolygonSource | null {
    const apiKey = env['US_PRICES_API_KEY']?.trim();
    const secUserAgent = env['SEC_USER_AGENT']?.trim();
    if (!apiKey || !secUserAgent) return null;
    const rpm = Number(env['US_PRICES_REQUESTS_PER_MINUTE']);
    return new PolygonSource({
      apiKey,
      secUserAgent,
      baseUrl: env['US_PRICES_BASE_URL'] || undefined,
      secDataBaseUrl: env['SEC_DATA_BASE_URL'] || undefined,
      secWwwBaseUrl: env['SEC_BASE_URL'] || undefined,
      requestsPerMinute: Number.isFinite(rpm) && rpm > 0 ? rpm : undefined,
    });
  }

  /** Ticker -> shares outstanding from the two latest calendar-quarter frames. */
  async shares(ctx: SourceContext, asOf: string): Promise<Map<string, number>> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.secLimiter, headers: { 'user-agent': this.config.secUserAgent } });
    const www = (this.config.secWwwBaseUrl ?? 'https://www.sec.gov').replace(/\/+$/, '');
    const data = (this.config.secDataBaseUrl ?? 'https://data.sec.gov').replace(/\/+$/, '');
    const tickersUrl = `${www}/files/company_tickers.json`;
    const tickers = parseCompanyTickers(await http.getJson(tickersUrl));
    if (tickers === null) throw http.parseError('company_tickers.json is not an object', tickersUrl);
    const latest = new Map<number, { end: string; val: number }>();
    const y = Number(asOf.slice(0, 4));
    const q = Math.floor((Number(asOf.slice(5, 7)) - 1) / 3) + 1;
    // The current quarter's frame fills in as 10-Qs arrive; the previous one is complete.
    for (const [yy, qq] of [[q === 1 ? y - 1 : y, q === 1 ? 4 : q - 1], [y, q]] as const) {
      const url = `${data}/api/xbrl/frames/dei/EntityCommonStockSharesOutstanding/shares/CY${yy}Q${qq}I.json`;
      const res = await http.request(url, { acceptStatus: [404] });
      if (res.status === 404) continue;
      const frame = parseSharesFrame(http.parseJson(new TextDecoder().decode(res.body), url));
      if (frame === null) throw http.parseError('frame without data', url);
      for (const [cik, v] of frame) {
        const prev = latest.get(cik);
        if (!prev || v.end > prev.end) latest.set(cik, v);
      }
    }
    const out = new Map<string, number>();
    for (const t of tickers) {
      const v = latest.get(t.cik);
      if (v && !out.has(t.ticker)) out.set(t.ticker, v.val);
    }
    return out;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, secrets: [this.config.apiKey], defaults: { timeoutMs: 60_000, backoffMs: 15_000 } });
    // asOf is a Seoul date; the US session of that date has not closed yet, nor has the one
    // before it until 16:00 in New York (05:00 or 06:00 in Seoul): with `now`, only sessions
    // closed by then are asked for (a partial day would move the cursor past it).
    const to = closedSessionsThrough('US', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    const from = ctx.range?.from ?? (ctx.cursor ? addDays(ctx.cursor, 1) : addDays(to, -(this.config.firstRunDays ?? 5)));
    const days = weekdaysBetween(from, to).slice(0, this.config.maxDaysPerRun ?? 10);
    const bars: DailyBar[] = [];
    const skipped: Record<string, number> = {};
    let cursor = ctx.cursor;
    if (days.length > 0) {
      const shares = await this.shares(ctx, to);
      for (const date of days) {
        const url = `${this.baseUrl}/v2/aggs/grouped/locale/us/market/stocks/${date}?adjusted=true&apiKey=${encodeURIComponent(this.config.apiKey)}`;
        const parsed = parseGrouped(await http.getJson(url));
        if (parsed === null) throw http.parseError('no status field', url);
        if (parsed.status !== 'OK' && parsed.status !== 'DELAYED') throw http.upstreamError(`status ${parsed.status}`, url);
        const day = toDailyBars(date, parsed.bars, shares);
        bars.push(...day.bars);
        for (const [reason, n] of Object.entries(day.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
        if (Object.keys(day.skipped).length > 0) ctx.log.info('polygon: rows skipped', { date, skipped: day.skipped });
        cursor = date;
      }
    }
    return { data: { bars }, cursor: cursor ?? addDays(from, -1), ...(Object.keys(skipped).length > 0 ? { skipped } : {}) };
  }
}
