// KRX investor-flow adapter: for each trading day after the cursor, net buying by foreigners
// (9000) and institutions (7050, 기관합계) on KOSPI (STK) and KOSDAQ (KSQ): four POSTs a day.

import type { InvestorFlow } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate, weekdaysBetween } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { INVESTOR, mergeFlows, parseNetBuying, SOURCE_NAME, type NetBuyRow } from './parse.js';

export interface KrxConfig extends HttpTuning {
  baseUrl?: string;
  /** A logged-in data.krx.co.kr session cookie; the marketplace answers `LOGOUT` without one. */
  cookie?: string;
  userAgent?: string;
  /** KRX publishes no limit; one request a second is polite. */
  requestsPerSecond?: number;
  /** Days fetched per run at most, so a long gap is caught up over several runs. */
  maxDaysPerRun?: number;
  firstRunDays?: number;
}

const MARKETS = ['STK', 'KSQ'] as const;

export class KrxSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;

  constructor(private readonly config: KrxConfig = {}) {
    this.baseUrl = (config.baseUrl ?? 'https://data.krx.co.kr').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 1);
  }

  /** Enabled by KRX_COOKIE (a session) or KRX_ENABLED=1 (for a proxy or base URL that needs none). */
  static fromEnv(env: Record<string, string | undefined>): KrxSource | null {
    const cookie = env['KRX_COOKIE']?.trim();
    if (!cookie && env['KRX_ENABLED'] !== '1') return null;
    return new KrxSource({ cookie: cookie || undefined, baseUrl: env['KRX_BASE_URL'] || undefined, userAgent: env['KRX_USER_AGENT'] || undefined });
  }

  private async netBuying(http: HttpClient, date: string, mktId: string, invstTpCd: string): Promise<NetBuyRow[]> {
    const url = `${this.baseUrl}/comm/bldAttendant/getJsonData.cmd`;
    const body = new URLSearchParams({
      bld: 'dbms/MDC/STAT/standard/MDCSTAT02401',
      locale: 'ko_KR',
      mktId,
      invstTpCd,
      strtDd: compactDate(date),
      endDd: compactDate(date),
      share: '1',
      money: '1',
      csvxls_isNo: 'false',
    }).toString();
    const text = await http.getText(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    if (text.trim() === 'LOGOUT') throw http.upstreamError('session required: the marketplace answered LOGOUT (set KRX_COOKIE)', url);
    const rows = parseNetBuying(http.parseJson(text, url));
    if (rows === null) throw http.parseError(`no output list: ${text.slice(0, 120)}`, url);
    return rows;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const headers: Record<string, string> = {
      'user-agent': this.config.userAgent ?? 'Mozilla/5.0 (compatible; kr-us-stock-data-service)',
      referer: `${this.baseUrl}/contents/MDC/MDI/mdiLoader/index.cmd`,
    };
    if (this.config.cookie) headers['cookie'] = this.config.cookie;
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, secrets: this.config.cookie ? [this.config.cookie] : [], headers });
    // Today's figures are provisional until the evening; only completed days are taken, and
    // never a session that has not closed (a backfill's range.to included).
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    const from = ctx.range?.from ?? (ctx.cursor ? addDays(ctx.cursor, 1) : addDays(to, -(this.config.firstRunDays ?? 7)));
    const days = weekdaysBetween(from, to).slice(0, this.config.maxDaysPerRun ?? 10);
    const flows: InvestorFlow[] = [];
    let cursor = ctx.cursor;
    for (const date of days) {
      const foreign: NetBuyRow[] = [];
      const institution: NetBuyRow[] = [];
      for (const mkt of MARKETS) {
        foreign.push(...(await this.netBuying(http, date, mkt, INVESTOR.FOREIGN)));
        institution.push(...(await this.netBuying(http, date, mkt, INVESTOR.INSTITUTION)));
      }
      // An empty day before `to` is a market holiday; either way it is done.
      flows.push(...mergeFlows(date, foreign, institution));
      cursor = date;
    }
    ctx.log.info('krx: ingested', { flows: flows.length, days: days.length });
    return { data: { flows }, cursor: cursor ?? addDays(from, -1) };
  }
}
