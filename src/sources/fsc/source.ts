// FSC stock price adapter: every KOSPI/KOSDAQ stock of a date in one call (numOfRows above the
// ~2,900 rows a day has; more pages only if a day ever holds more), walking dates: the new
// sessions after the cursor first, then back through the history window (ten years by
// default) a bounded number of dates a run, newest first, so the latest prices and listed
// shares are served after the first call (shared/date-walk.ts). Calls are counted against the
// key's daily allowance (data.go.kr development keys: 10,000 a day per service); out of it the
// run stops with the dates it has, phase `paced`.

import type { DailyBar, Security } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { AllowanceSpent, CallMeter } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { encodeServiceKey, gatewayError } from '../shared/datagokr.js';
import { walkMarket } from '../shared/market-walk.js';
import { addDays, compactDate } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { parseFscItem, parseFscPage, SOURCE_NAME } from './parse.js';

export interface FscConfig extends HttpTuning {
  serviceKey: string;
  baseUrl?: string;
  /** No per-second limit is documented; five a second is polite. */
  requestsPerSecond?: number;
  /** Rows asked per call: above a day's ~2,900, so a date is one call. */
  pageSize?: number;
  /** Calendar days of history walked back from the newest session (default 3,653: ten years). */
  historyDays?: number;
  /** Dates a run at most (default 250, about a year: ~725,000 bars in one write). */
  maxDaysPerRun?: number;
  /**
   * Weekdays in a row without rows, walking back after rows were seen, that mark the start of
   * the provider's history (the longest KRX closure, Chuseok with substitute days, is 5).
   */
  emptyDaysToStop?: number;
  /** Calls a Seoul day (the development key's documented 10,000; more for an operation key). */
  dailyAllowance?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

/** The data.go.kr gateway's code for a key past its day's traffic (LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR). */
const GATEWAY_QUOTA = /gateway error 22\b/;

export class FscSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  readonly meter: CallMeter;

  constructor(private readonly config: FscConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 5);
    this.meter = new CallMeter(SOURCE_NAME, config.dailyAllowance ?? 10_000, config.clock);
  }

  /** DATA_GO_KR_API_KEY; FSC_DAILY_ALLOWANCE (an operation key's traffic), FSC_HISTORY_DAYS optional. */
  static fromEnv(env: Record<string, string | undefined>): FscSource | null {
    const serviceKey = env['DATA_GO_KR_API_KEY']?.trim();
    if (!serviceKey) return null;
    const positive = (name: string): number | undefined => {
      const n = Number(env[name]);
      return Number.isInteger(n) && n > 0 ? n : undefined;
    };
    const dailyAllowance = positive('FSC_DAILY_ALLOWANCE');
    const historyDays = positive('FSC_HISTORY_DAYS');
    return new FscSource({
      serviceKey,
      baseUrl: env['FSC_BASE_URL'] || undefined,
      ...(dailyAllowance ? { dailyAllowance } : {}),
      ...(historyDays ? { historyDays } : {}),
    });
  }

  /** Every row of one date: the number of rows, pushed into `into`. */
  private async date(http: HttpClient, date: string, into: (bar: DailyBar, security: Security) => void): Promise<number> {
    const pageSize = this.config.pageSize ?? 3_000;
    let rows = 0;
    for (let page = 1; ; page++) {
      // One date: beginBasDt inclusive, endBasDt exclusive ("기준일자가 검색값보다 작은").
      const url =
        `${this.baseUrl}/getStockPriceInfo?serviceKey=${encodeServiceKey(this.config.serviceKey)}` +
        `&resultType=json&numOfRows=${pageSize}&pageNo=${page}` +
        `&beginBasDt=${compactDate(date)}&endBasDt=${compactDate(addDays(date, 1))}`;
      const text = await http.getText(url);
      const gw = gatewayError(text);
      if (gw && GATEWAY_QUOTA.test(gw)) {
        this.meter.spend();
        throw new AllowanceSpent(this.name, this.meter.callsToday, this.meter.dailyAllowance ?? 0, this.meter.nextTryAt());
      }
      if (gw) throw http.upstreamError(gw, url);
      const parsed = parseFscPage(http.parseJson(text, url));
      if (parsed === null) throw http.parseError('no response envelope', url);
      if (parsed.resultCode !== '00') throw http.upstreamError(`resultCode ${parsed.resultCode} ${parsed.resultMsg}`, url);
      for (const item of parsed.items) {
        const row = parseFscItem(item);
        if (row) into(row.bar, row.security);
      }
      rows += parsed.items.length;
      if (parsed.items.length === 0 || page * pageSize >= parsed.totalCount) return rows;
    }
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets: [this.config.serviceKey, encodeServiceKey(this.config.serviceKey)], defaults: { timeoutMs: 60_000 } });
    this.meter.restore(ctx.calls);
    const { rows, cursor } = await walkMarket(ctx, {
      name: this.name,
      meter: this.meter,
      perCallMs: this.limiter.minIntervalMs,
      callsPerDate: 1,
      // FSC publishes a day on the next business day after 13:00; only closed sessions (15:30 Seoul) are asked for.
      to: closedSessionsThrough('KR', ctx, ctx.range?.to ?? ctx.asOf),
      historyFrom: addDays(ctx.asOf, -(this.config.historyDays ?? 3_653)),
      maxDaysPerRun: this.config.maxDaysPerRun ?? 250,
      emptyDaysToStop: this.config.emptyDaysToStop ?? 10,
      date: (d, take) => this.date(http, d, take),
    });
    return { data: { bars: rows.bars, securities: rows.securities() }, cursor, calls: this.meter.state() };
  }
}
