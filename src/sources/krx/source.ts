// KRX investor-flow adapter: for each trading day after the cursor, net buying by foreigners
// (9000) and institutions (7050, 기관합계) on KOSPI (STK) and KOSDAQ (KSQ): four POSTs a day,
// through a signed-in member session (session.ts). The score's supply input needs the last 20
// trading days, so a first run reads six weeks. Optionally (KRX_PRICES=1) also prices and listed
// shares of the whole market by date (MDCSTAT01501, one call a date), walked like FSC's: new
// sessions first, then back through the history window a bounded number of dates a run.

import type { DailyBar, InvestorFlow, Security } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter } from '../http.js';
import { CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { planWalk, readWalkCursor, walkDates, type WalkCursor } from '../shared/date-walk.js';
import { MarketRows } from '../shared/market-rows.js';
import { addDays, compactDate, jsonObject, weekdaysBetween } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { INVESTOR, mergeFlows, parseMarketDay, parseNetBuying, SOURCE_NAME, type NetBuyRow } from './parse.js';
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
  /** Also prices and listed shares of the whole market by date (MDCSTAT01501). */
  prices?: boolean;
  /** Calendar days of price history walked back (default 3,653, ten years). */
  historyDays?: number;
  /** Price dates a run at most (default 120: two minutes at one a second). */
  maxPriceDaysPerRun?: number;
}

/**
 * The cursor: the flows' last completed date, alone (bare, when no prices are taken) or with the price
 * walk's ends: `{"flows":"YYYY-MM-DD","prices":{"date","back","complete"}}`.
 */
export interface KrxCursor {
  flows: string | null;
  prices: WalkCursor;
}

export function readKrxCursor(raw: string | null): KrxCursor | null {
  const fresh: WalkCursor = { latest: null, back: null, complete: false };
  if (raw === null || raw === '') return { flows: null, prices: fresh };
  if (!raw.trimStart().startsWith('{')) return { flows: raw.trim(), prices: fresh };
  const body = jsonObject(raw);
  if (body === null) return null;
  const { flows, prices } = body;
  return { flows: typeof flows === 'string' ? flows : null, prices: (prices ? readWalkCursor(JSON.stringify(prices)) : null) ?? fresh };
}

/** The variable by which the operator acknowledges the KRX Data Marketplace's terms. */
export const KRX_TERMS_VARIABLE = 'KRX_MARKETPLACE_ACCEPT_TERMS';

/** The operator has acknowledged the marketplace's terms: KRX_MARKETPLACE_ACCEPT_TERMS=yes (any case). */
export function krxTermsAccepted(env: Record<string, string | undefined>): boolean {
  return env[KRX_TERMS_VARIABLE]?.trim().toLowerCase() === 'yes';
}

/**
 * The one line said at start when the marketplace is configured (credentials, a cookie or
 * KRX_ENABLED=1) but its terms are not acknowledged, so the source is off; null otherwise.
 */
export function krxUnacknowledged(env: Record<string, string | undefined>): string | null {
  const configured = (env['KRX_ID']?.trim() && env['KRX_PASSWORD']) || env['KRX_COOKIE']?.trim() || env['KRX_ENABLED'] === '1';
  if (!configured || krxTermsAccepted(env)) return null;
  return `krx: the KRX Data Marketplace is configured but off: set ${KRX_TERMS_VARIABLE}=yes to acknowledge its member terms (data.krx.co.kr); the brokerage flows adapter (kis, KIS_APP_KEY / KIS_APP_SECRET) supplies the same flows`;
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
   * or KRX_ENABLED=1 (for a proxy or base URL that needs none), and only together with the
   * operator's acknowledgement of the marketplace's terms, KRX_MARKETPLACE_ACCEPT_TERMS=yes:
   * never by default. Configured without it, the source stays off (`krxUnacknowledged` says so).
   */
  static fromEnv(env: Record<string, string | undefined>): KrxSource | null {
    const historyDays = Number(env['KRX_HISTORY_DAYS']);
    const id = env['KRX_ID']?.trim();
    const password = env['KRX_PASSWORD'];
    const credentials = id && password ? { id, password } : undefined;
    const cookie = env['KRX_COOKIE']?.trim();
    if (!credentials && !cookie && env['KRX_ENABLED'] !== '1') return null;
    if (!krxTermsAccepted(env)) return null;
    return new KrxSource({
      ...(credentials ? { credentials } : {}),
      cookie: cookie || undefined,
      baseUrl: env['KRX_BASE_URL'] || undefined,
      userAgent: env['KRX_USER_AGENT'] || undefined,
      prices: env['KRX_PRICES'] === '1',
      ...(Number.isInteger(historyDays) && historyDays > 0 ? { historyDays } : {}),
    });
  }

  /** Sign-ins made so far (the first and each renewal). */
  get signIns(): number {
    return this.session.signIns;
  }

  /**
   * One statistics screen (`bld`) POSTed as a form with its parameters, the answer parsed by
   * `parse`; null from `parse` (the rows' list missing) is a parse error naming `expected`.
   */
  private async post<T>(http: HttpClient, bld: string, params: Record<string, string>, parse: (body: unknown) => T | null, expected: string): Promise<T> {
    const form = new URLSearchParams({ bld: `dbms/MDC/STAT/standard/${bld}`, locale: 'ko_KR', ...params, share: '1', money: '1', csvxls_isNo: 'false' }).toString();
    const text = await this.session.postData(http, DATA_PATH, form, `${this.baseUrl}/contents/MDC/MDI/mdiLoader/index.cmd`);
    const url = `${this.baseUrl}${DATA_PATH}`;
    const rows = parse(http.parseJson(text, url));
    if (rows === null) throw http.parseError(`no ${expected}: ${text.slice(0, 120)}`, url);
    return rows;
  }

  private netBuying(http: HttpClient, date: string, mktId: string, invstTpCd: string): Promise<NetBuyRow[]> {
    return this.post(http, 'MDCSTAT02401', { mktId, invstTpCd, strtDd: compactDate(date), endDd: compactDate(date) }, parseNetBuying, 'output list');
  }

  /** Every KOSPI/KOSDAQ row of one date, pushed into `take`; the number of rows. */
  private async marketDay(http: HttpClient, date: string, take: (bar: DailyBar, security: Security) => void): Promise<number> {
    const rows = await this.post(http, 'MDCSTAT01501', { mktId: 'ALL', trdDd: compactDate(date) }, (body) => parseMarketDay(body, date), 'OutBlock_1');
    for (const r of rows) take(r.bar, r.security);
    return rows.length;
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const secrets = [this.config.cookie, this.config.credentials?.password, this.config.credentials?.id].filter((s): s is string => s !== undefined && s !== '');
    const headers: Record<string, string> = { 'user-agent': this.config.userAgent ?? 'Mozilla/5.0 (compatible; kr-us-stock-data-service)' };
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets, headers });
    this.meter.restore(ctx.calls);
    // Today's figures are provisional until the evening; only completed days are taken, and
    // never a session that has not closed (a backfill's range.to included).
    const cursor = readKrxCursor(ctx.cursor);
    if (cursor === null) ctx.log.warn('krx: unreadable cursor, starting afresh');
    const flowsCursor = cursor?.flows ?? null;
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    const from = ctx.range?.from ?? (flowsCursor ? addDays(flowsCursor, 1) : addDays(to, -(this.config.firstRunDays ?? 42)));
    const days = weekdaysBetween(from, to).slice(0, this.config.maxDaysPerRun ?? 30);
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: days.length, callsPerUnit: MARKETS.length * 2, perCallMs: this.limiter.minIntervalMs });
    plan.start();
    const flows: InvestorFlow[] = [];
    let last = flowsCursor;
    for (const date of days) {
      const foreign: NetBuyRow[] = [];
      const institution: NetBuyRow[] = [];
      for (const mkt of MARKETS) {
        foreign.push(...(await this.netBuying(http, date, mkt, INVESTOR.FOREIGN)));
        institution.push(...(await this.netBuying(http, date, mkt, INVESTOR.INSTITUTION)));
      }
      // An empty day before `to` is a market holiday; either way it is done.
      flows.push(...mergeFlows(date, foreign, institution));
      last = date;
      plan.step();
    }
    plan.finish();
    const flowsOut = last ?? addDays(from, -1);
    ctx.log.info('krx: ingested', { flows: flows.length, days: days.length, signIns: this.session.signIns });
    if (!this.config.prices) return { data: { flows }, cursor: flowsOut, calls: this.meter.state() };

    // Prices: the closing prices of a session are final once it has closed (15:30 Seoul).
    const rows = new MarketRows();
    const priceTo = closedSessionsThrough('KR', ctx, ctx.range?.to ?? ctx.asOf);
    const historyFrom = addDays(ctx.asOf, -(this.config.historyDays ?? 3_653));
    const prior = cursor?.prices ?? { latest: null, back: null, complete: false };
    // A backfill walks its range's dates, newest first; the incremental cursor is not moved.
    const walk = ctx.range
      ? { forward: [], backward: weekdaysBetween(ctx.range.from, priceTo).reverse(), total: 0, doneBefore: 0 }
      : planWalk(prior, { to: priceTo, historyFrom, maxDays: this.config.maxPriceDaysPerRun ?? 120 });
    if (ctx.range) walk.total = walk.backward.length;
    const next: WalkCursor = { ...prior };
    const pricePlan = new CallPlan(ctx.progress, this.meter, { unit: 'days', total: walk.total, callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs, doneBefore: walk.doneBefore });
    pricePlan.start(`whole-market prices by date (MDCSTAT01501), back to ${ctx.range?.from ?? historyFrom}`);
    const ended = await walkDates(walk, next, {
      historyFrom: ctx.range?.from ?? historyFrom,
      emptyDaysToStop: 10,
      rows: (d) => this.marketDay(http, d, rows.take),
      step: () => pricePlan.step(),
    });
    if (ended) ctx.log.info(`krx: ${ended}`);
    if (next.complete || ctx.range) pricePlan.finish();
    else pricePlan.rest(`the price walk continues next run from ${next.back ?? priceTo}`);
    const out = ctx.range ? (ctx.cursor ?? flowsOut) : JSON.stringify({ flows: flowsOut, prices: { date: next.latest, back: next.back, complete: next.complete } });
    return { data: { flows, bars: rows.bars, securities: rows.securities() }, cursor: out, calls: this.meter.state() };
  }
}
