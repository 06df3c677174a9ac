// FSC stock price adapter: all KOSPI/KOSDAQ stocks for every trading day after the cursor,
// fetched as one date range and paged (numOfRows/pageNo/totalCount).

import type { DailyBar, Security } from '../../domain/model.js';
import { clientForRun, type HttpTuning, RateLimiter } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { encodeServiceKey, gatewayError } from '../shared/datagokr.js';
import { addDays, compactDate } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { parseFscItem, parseFscPage, SOURCE_NAME } from './parse.js';

export interface FscConfig extends HttpTuning {
  serviceKey: string;
  baseUrl?: string;
  /** data.go.kr development keys allow 10,000 calls a day; pace politely. */
  requestsPerSecond?: number;
  pageSize?: number;
  firstRunDays?: number;
}

export class FscSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;

  constructor(private readonly config: FscConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 5);
  }

  static fromEnv(env: Record<string, string | undefined>): FscSource | null {
    const serviceKey = env['DATA_GO_KR_API_KEY']?.trim();
    if (!serviceKey) return null;
    return new FscSource({ serviceKey, baseUrl: env['FSC_BASE_URL'] || undefined });
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, secrets: [this.config.serviceKey, encodeServiceKey(this.config.serviceKey)], defaults: { timeoutMs: 60_000 } });
    const from = ctx.range?.from ?? (ctx.cursor ? addDays(ctx.cursor, 1) : addDays(ctx.asOf, -(this.config.firstRunDays ?? 7)));
    // FSC publishes a day on the next business day, and only closed sessions (15:30 Seoul) are asked for.
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? ctx.asOf);
    const bars: DailyBar[] = [];
    const securities = new Map<string, { date: string; security: Security }>();
    let latest = ctx.cursor;
    if (from <= to) {
      const pageSize = this.config.pageSize ?? 1000;
      for (let page = 1; ; page++) {
        // endBasDt is exclusive ("기준일자가 검색값보다 작은"), hence the day after `to`.
        const url =
          `${this.baseUrl}/getStockPriceInfo?serviceKey=${encodeServiceKey(this.config.serviceKey)}` +
          `&resultType=json&numOfRows=${pageSize}&pageNo=${page}` +
          `&beginBasDt=${compactDate(from)}&endBasDt=${compactDate(addDays(to, 1))}`;
        const text = await http.getText(url);
        const gw = gatewayError(text);
        if (gw) throw http.upstreamError(gw, url);
        const parsed = parseFscPage(http.parseJson(text, url));
        if (parsed === null) throw http.parseError('no response envelope', url);
        if (parsed.resultCode !== '00') throw http.upstreamError(`resultCode ${parsed.resultCode} ${parsed.resultMsg}`, url);
        for (const item of parsed.items) {
          const row = parseFscItem(item);
          if (!row) continue;
          bars.push(row.bar);
          const prev = securities.get(row.security.code);
          // Keep the name/market of the latest day (renames and KOSDAQ->KOSPI moves).
          if (!prev || prev.date <= row.bar.date) securities.set(row.security.code, { date: row.bar.date, security: row.security });
          if (latest === null || row.bar.date > latest) latest = row.bar.date;
        }
        if (parsed.items.length === 0 || page * pageSize >= parsed.totalCount) break;
      }
    }
    ctx.log.info('fsc: ingested', { bars: bars.length, from, to });
    return {
      data: { bars, securities: [...securities.values()].map((s) => s.security) },
      cursor: latest ?? ctx.cursor ?? addDays(from, -1),
    };
  }
}
