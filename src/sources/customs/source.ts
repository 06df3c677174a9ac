// Korea Customs adapter: monthly totals (Newtrade, twelve months per call) and exports by
// sector (Itemtrade, one month per call, ~10,000 HSK rows). Customs revises recent months
// (provisional -> final), so each run re-reads the last three months before the cursor.
// Calls are counted against the key's daily traffic per service (data.go.kr development keys:
// 10,000); a first run needs about 62 (38 yearly windows of totals from 1990, 24 sector months).

import type { SectorExportMonth, TradeMonth } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { AllowanceSpent, CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { encodeServiceKey, gatewayError } from '../shared/datagokr.js';
import { addMonths, monthsBetween } from '../shared/parse.js';
import { parseCustomsXml, SOURCE_NAME, toSectorExports, toTradeMonths, type CustomsPage } from './parse.js';

export interface CustomsConfig extends HttpTuning {
  serviceKey: string;
  baseUrl?: string;
  requestsPerSecond?: number;
  pageSize?: number;
  /** First month of the totals series on a first run (data exist from 1990-01). */
  firstMonth?: string;
  /** Months of sector exports read on a first run (one request each). */
  firstRunSectorMonths?: number;
  /** Calls a Seoul day per service (the development key's documented 10,000). */
  dailyAllowance?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

const GATEWAY_QUOTA = /gateway error 22\b/;

const ym = (month: string): string => month.replace('-', '');

export class CustomsSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  readonly meter: CallMeter;
  /** Called after each request (the run's progress). */
  private onCall: () => void = () => undefined;

  constructor(private readonly config: CustomsConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://apis.data.go.kr/1220000').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 2);
    this.meter = new CallMeter(SOURCE_NAME, config.dailyAllowance ?? 10_000, config.clock);
  }

  /** DATA_GO_KR_API_KEY; CUSTOMS_DAILY_ALLOWANCE for an operation key's traffic. */
  static fromEnv(env: Record<string, string | undefined>): CustomsSource | null {
    const serviceKey = env['DATA_GO_KR_API_KEY']?.trim();
    if (!serviceKey) return null;
    const allowance = Number(env['CUSTOMS_DAILY_ALLOWANCE']);
    return new CustomsSource({
      serviceKey,
      baseUrl: env['CUSTOMS_BASE_URL'] || undefined,
      ...(Number.isInteger(allowance) && allowance > 0 ? { dailyAllowance: allowance } : {}),
    });
  }

  private async page(http: HttpClient, path: string, params: Record<string, string>): Promise<CustomsPage> {
    const url = `${this.baseUrl}/${path}?serviceKey=${encodeServiceKey(this.config.serviceKey)}&${new URLSearchParams(params).toString()}`;
    const text = await http.getText(url);
    this.onCall();
    const gw = gatewayError(text);
    if (gw && GATEWAY_QUOTA.test(gw)) {
      this.meter.spend();
      throw new AllowanceSpent(this.name, this.meter.callsToday, this.meter.dailyAllowance ?? 0, this.meter.nextTryAt());
    }
    if (gw) throw http.upstreamError(gw, url);
    const page = parseCustomsXml(text);
    if (page === null) throw http.parseError(`no resultCode: ${text.slice(0, 120)}`, url);
    if (page.resultCode !== '00') throw http.upstreamError(`resultCode ${page.resultCode} ${page.resultMsg}`, url);
    return page;
  }

  /** Monthly totals from `from` to `to`, pushed into `out` window by window (what came stays there if a later window fails). */
  async totals(http: HttpClient, from: string, to: string, out: TradeMonth[] = []): Promise<TradeMonth[]> {
    // The service rejects windows longer than a year (resultCode 99).
    for (let start = from; start <= to; start = addMonths(start, 12)) {
      const end = addMonths(start, 11) < to ? addMonths(start, 11) : to;
      const page = await this.page(http, 'Newtrade/getNewtradeList', { strtYymm: ym(start), endYymm: ym(end) });
      out.push(...toTradeMonths(page.items));
    }
    return out;
  }

  async sectorMonth(http: HttpClient, month: string): Promise<SectorExportMonth[]> {
    const pageSize = this.config.pageSize ?? 10_000;
    const items: Record<string, string>[] = [];
    for (let pageNo = 1; ; pageNo++) {
      const page = await this.page(http, 'Itemtrade/getItemtradeList', {
        strtYymm: ym(month),
        endYymm: ym(month),
        numOfRows: String(pageSize),
        pageNo: String(pageNo),
      });
      items.push(...page.items);
      // Some deployments ignore paging and send everything at once; stop when nothing is left.
      if (page.items.length === 0 || page.totalCount === null || items.length >= page.totalCount) break;
    }
    return toSectorExports(items);
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets: [this.config.serviceKey, encodeServiceKey(this.config.serviceKey)], defaults: { timeoutMs: 120_000, backoffMs: 2_000 } });
    this.meter.restore(ctx.calls);
    const to = ctx.range ? ctx.range.to.slice(0, 7) : addMonths(ctx.asOf.slice(0, 7), -1);
    const from = ctx.range
      ? ctx.range.from.slice(0, 7)
      : ctx.cursor
        ? addMonths(ctx.cursor, -2)
        : (this.config.firstMonth ?? '1990-01');
    const sectorFrom = ctx.range || ctx.cursor ? from : addMonths(to, -((this.config.firstRunSectorMonths ?? 24) - 1));
    const sectorMonths = monthsBetween(sectorFrom, to);
    // One call per twelve months of totals and one per sector month (more only if a month pages).
    const planned = (from <= to ? Math.ceil(monthsBetween(from, to).length / 12) : 0) + sectorMonths.length;
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'calls', total: planned, callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs });
    this.onCall = () => plan.step();
    plan.start(`trade totals from ${from}, sector exports from ${sectorFrom}`);
    const trade: TradeMonth[] = [];
    const sectorExports: SectorExportMonth[] = [];
    try {
      if (from <= to) await this.totals(http, from, to, trade);
      for (const month of sectorMonths) sectorExports.push(...(await this.sectorMonth(http, month)));
    } catch (err) {
      if (!(err instanceof AllowanceSpent)) throw err;
      // What came is kept; the cursor stays, so the next run (after the renewal) asks the same
      // months again (an empty cursor reads as none: a first run again).
      plan.paced();
      ctx.log.warn('customs: the day\'s allowance is used; the months resume after the renewal', { nextTryAt: err.nextTryAt.toISOString() });
      return { data: { trade, sectorExports }, cursor: ctx.cursor ?? '', calls: this.meter.state() };
    } finally {
      this.onCall = () => undefined;
    }
    plan.finish();
    const latest = trade.map((t) => t.month).sort().at(-1);
    const cursor = [latest, ctx.cursor].filter((m): m is string => m !== undefined && m !== null && m !== '').sort().at(-1);
    ctx.log.info('customs: ingested', { months: trade.length, sectorRows: sectorExports.length, from, to });
    return { data: { trade, sectorExports }, cursor: cursor ?? addMonths(from, -1), calls: this.meter.state() };
  }
}
