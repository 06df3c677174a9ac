// KRX investor-flow adapter: for each trading day after the cursor, net buying by foreigners
// (9000) and institutions (7050, 기관합계) on KOSPI (STK) and KOSDAQ (KSQ): four POSTs a day,
// through a signed-in member session (session.ts). The score's supply input needs the last 20
// trading days, so a first run reads six weeks.

import type { InvestorFlow } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, compactDate, weekdaysBetween } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { INVESTOR, mergeFlows, parseNetBuying, SOURCE_NAME, type NetBuyRow } from './parse.js';
import { KrxSession, type KrxCredentials } from './session.js';

export interface KrxConfig extends HttpTuning {
  baseUrl?: string;
  /** Member credentials (KRX_ID / KRX_PASSWORD): the adapter signs in and renews the session itself. */
  credentials?: KrxCredentials;
  /** A signed-in data.krx.co.kr session cookie pasted by hand (KRX_COOKIE): the fallback without credentials. */
  cookie?: string;
  userAgent?: string;
  /** KRX publishes no limit; one request a second is polite. */
  requestsPerSecond?: number;
  /** Days fetched per run at most, so a long gap is caught up over several runs. */
  maxDaysPerRun?: number;
  /** Calendar days a first run reads: six weeks hold the 20 trading days the supply input needs. */
  firstRunDays?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

const MARKETS = ['STK', 'KSQ'] as const;
const DATA_PATH = '/comm/bldAttendant/getJsonData.cmd';

export class KrxSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  private readonly session: KrxSession;
  /** KRX documents no daily allowance: the meter counts calls for the progress report only. */
  readonly meter: CallMeter;

  constructor(private readonly config: KrxConfig = {}) {
    this.baseUrl = (config.baseUrl ?? 'https://data.krx.co.kr').replace(/\/+$/, '');
    this.limiter = RateLimiter.perSecond(config.requestsPerSecond ?? 1);
    this.session = new KrxSession({ baseUrl: this.baseUrl, ...(config.credentials ? { credentials: config.credentials } : {}), ...(config.cookie ? { cookie: config.cookie } : {}) });
    this.meter = new CallMeter(SOURCE_NAME, null, config.clock);
  }

  /**
   * Enabled by KRX_ID and KRX_PASSWORD (member sign-in), KRX_COOKIE (a session pasted by hand)
   * or KRX_ENABLED=1 (for a proxy or base URL that needs none).
   */
  static fromEnv(env: Record<string, string | undefined>): KrxSource | null {
    const id = env['KRX_ID']?.trim();
    const password = env['KRX_PASSWORD'];
    const credentials = id && password ? { id, password } : undefined;
    const cookie = env['KRX_COOKIE']?.trim();
    if (!credentials && !cookie && env['KRX_ENABLED'] !== '1') return null;
    return new KrxSource({
      ...(credentials ? { credentials } : {}),
      cookie: cookie || undefined,
      baseUrl: env['KRX_BASE_URL'] || undefined,
      userAgent: env['KRX_USER_AGENT'] || undefined,
    });
  }

  /** Sign-ins made so far (the first and each renewal). */
  get signIns(): number {
    return this.session.signIns;
  }

  private async netBuying(http: HttpClient, date: string, mktId: string, invstTpCd: string): Promise<NetBuyRow[]> {
    const form = new URLSearchParams({
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
    const text = await this.session.postData(http, DATA_PATH, form, `${this.baseUrl}/contents/MDC/MDI/mdiLoader/index.cmd`);
    const url = `${this.baseUrl}${DATA_PATH}`;
    const rows = parseNetBuying(http.parseJson(text, url));
    if (rows === null) throw http.parseError(`no output list: ${text.slice(0, 120)}`, url);
    return rows;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const secrets = [this.config.cookie, this.config.credentials?.password, this.config.credentials?.id].filter((s): s is string => s !== undefined && s !== '');
    const headers: Record<string, string> = { 'user-agent': this.config.userAgent ?? 'Mozilla/5.0 (compatible; kr-us-stock-data-service)' };
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets, headers });
    this.meter.restore(ctx.calls);
    // Today's figures are provisional until the evening; only completed days are taken, and
    // never a session that has not closed (a backfill's range.to included).
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    const from = ctx.range?.from ?? (ctx.cursor ? addDays(ctx.cursor, 1) : addDays(to, -(this.config.firstRunDays ?? 42)));
    const days = weekdaysBetween(from, to).slice(0, this.config.maxDaysPerRun ?? 30);
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: days.length, callsPerUnit: MARKETS.length * 2, perCallMs: this.limiter.minIntervalMs });
    plan.start();
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
      plan.step();
    }
    plan.finish();
    ctx.log.info('krx: ingested', { flows: flows.length, days: days.length, signIns: this.session.signIns });
    return { data: { flows }, cursor: cursor ?? addDays(from, -1), calls: this.meter.state() };
  }
}
