// KIS investor-flow adapter: per listed KR stock, foreign and institutional net buying by
// session from the Korea Investment & Securities open API's 주식현재가 투자자 (inquire-investor,
// tr_id FHKST01010900). One call answers a stock's last ~30 sessions, so a first run holds the
// 20 trading days the score's supply input needs after one call per stock, and later runs ask
// each stock once per new session and keep only the sessions after its cursor. The stocks asked
// are the store's listed KR stocks (`ctx.universe`); the adapter adds none of its own.
//
// Pacing: the documented REST rate of a real account is 20 calls a second (the official sample
// kis_auth.py spaces calls 0.05 s apart; a paper-trading account 0.5 s), one limiter for every
// KIS call of the process. An EGW00201 answer (over the rate all the same) waits a second and
// asks again. The token lifecycle is in token.ts.

import { join } from 'node:path';
import type { InvestorFlow } from '../../domain/model.js';
import { clientForRun, type HttpClient, type HttpTuning, RateLimiter, sleep } from '../http.js';
import { CallMeter, CallPlan } from '../meter.js';
import type { Source, SourceContext, SourceResult } from '../source.js';
import { addDays, isRecord } from '../shared/parse.js';
import { closedSessionsThrough } from '../shared/session.js';
import { KIS_CODE, kisFailure, parseInvestorTrend, SOURCE_NAME } from './parse.js';
import { KisTokens } from './token.js';

export const INVESTOR_PATH = '/uapi/domestic-stock/v1/quotations/inquire-investor';
export const INVESTOR_TR_ID = 'FHKST01010900';

export interface KisConfig extends HttpTuning {
  appKey: string;
  appSecret: string;
  /** https://openapi.koreainvestment.com:9443 (a real account); the paper-trading domain or a replica otherwise. */
  baseUrl?: string;
  /** Calls a second (default 20, a real account's documented rate; 2 for a paper-trading account). */
  requestsPerSecond?: number;
  /** Where the token is kept across restarts; null: memory only (default: none, set by `fromEnv` to DATA_DIR/kis/token.json). */
  tokenFile?: string | null;
  /** Stocks asked per run at most (default 4,000, above the ~2,700 listed). */
  maxStocksPerRun?: number;
  /** The meter's clock (tests). */
  clock?: () => Date;
}

/**
 * The cursor: per stock, the newest session taken, grouped by date to stay small
 * (`{"v":1,"through":{"2024-06-10":["005930",...],...}}`).
 */
export type KisCursor = Map<string, string>;

export function readKisCursor(raw: string | null): KisCursor | null {
  const out: KisCursor = new Map();
  if (raw === null || raw === '') return out;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isRecord(body) || !isRecord(body['through'])) return null;
  for (const [date, codes] of Object.entries(body['through'])) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !Array.isArray(codes)) return null;
    for (const code of codes) if (typeof code === 'string') out.set(code, date);
  }
  return out;
}

export function writeKisCursor(cursor: KisCursor): string {
  const byDate: Record<string, string[]> = {};
  for (const [code, date] of [...cursor].sort(([a], [b]) => a.localeCompare(b))) (byDate[date] ??= []).push(code);
  return JSON.stringify({ v: 1, through: byDate });
}

const ATTEMPTS_OVER_RATE = 5;

export class KisSource implements Source {
  readonly name = SOURCE_NAME;
  private readonly baseUrl: string;
  private readonly limiter: RateLimiter;
  /** KIS documents no daily allowance: the meter counts calls for the progress report only. */
  readonly meter: CallMeter;
  readonly tokens: KisTokens;
  readonly timeoutMs: number;

  constructor(private readonly config: KisConfig) {
    this.baseUrl = (config.baseUrl ?? 'https://openapi.koreainvestment.com:9443').replace(/\/+$/, '');
    this.limiter = RateLimiter.shared(`kis:${this.baseUrl}`, config.requestsPerSecond ?? 20);
    this.meter = new CallMeter(SOURCE_NAME, null, config.clock);
    this.tokens = new KisTokens({ baseUrl: this.baseUrl, appKey: config.appKey, appSecret: config.appSecret, file: config.tokenFile ?? null });
    // A whole walk at the paced rate, with half again for answers' own time, and at least ten minutes.
    this.timeoutMs = Math.max(600_000, Math.ceil((config.maxStocksPerRun ?? 4_000) * this.limiter.minIntervalMs * 1.5));
  }

  /**
   * KIS_APP_KEY and KIS_APP_SECRET; KIS_BASE_URL (the paper-trading domain, a replica),
   * KIS_REQUESTS_PER_SECOND (2 for a paper-trading account); the token is kept in DATA_DIR/kis.
   */
  static fromEnv(env: Record<string, string | undefined>): KisSource | null {
    const appKey = env['KIS_APP_KEY']?.trim();
    const appSecret = env['KIS_APP_SECRET']?.trim();
    if (!appKey || !appSecret) return null;
    const rate = Number(env['KIS_REQUESTS_PER_SECOND']);
    return new KisSource({
      appKey,
      appSecret,
      baseUrl: env['KIS_BASE_URL'] || undefined,
      ...(Number.isFinite(rate) && rate > 0 ? { requestsPerSecond: rate } : {}),
      tokenFile: join(env['DATA_DIR'] || './data', 'kis', 'token.json'),
    });
  }

  /**
   * One stock's answer: its flows, or why it has none (`failure`). A token KIS says expired
   * is renewed once; over the rate, the call waits a second and is asked again.
   */
  private async investorTrend(http: HttpClient, secrets: string[], code: string): Promise<{ flows: InvestorFlow[] } | { failure: string }> {
    const url = `${this.baseUrl}${INVESTOR_PATH}?FID_COND_MRKT_DIV_CODE=J&FID_INPUT_ISCD=${code}`;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const token = await this.tokens.token(http);
      if (!secrets.includes(token)) secrets.push(token);
      const res = await http.request(url, {
        headers: { authorization: `Bearer ${token}`, appkey: this.config.appKey, appsecret: this.config.appSecret, tr_id: INVESTOR_TR_ID, custtype: 'P', 'content-type': 'application/json; charset=utf-8' },
        // KIS answers its own errors (rate, token) with HTTP 500 and a JSON envelope.
        acceptStatus: [500],
      });
      const text = new TextDecoder().decode(res.body);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        if (res.status !== 500) return { failure: 'answer is not JSON' };
        // A gateway's own 500 (no KIS envelope): retried as the HttpClient retries a 5xx.
        if (attempt < ATTEMPTS_OVER_RATE) {
          await sleep(1_000 * attempt);
          continue;
        }
        throw http.upstreamError(`HTTP 500 without a KIS answer: ${text.slice(0, 120).replace(/\s+/g, ' ')}`, url);
      }
      const failure = kisFailure(body);
      if (failure?.code === KIS_CODE.RATE && attempt < ATTEMPTS_OVER_RATE) {
        await sleep(1_000);
        continue;
      }
      if (failure?.code === KIS_CODE.TOKEN_EXPIRED && !renewed) {
        this.tokens.invalidate(token);
        renewed = true;
        continue;
      }
      if (failure?.code === KIS_CODE.RATE) throw http.upstreamError(`${failure.code} ${failure.message}: still over the call rate after ${ATTEMPTS_OVER_RATE} tries`, url);
      if (failure?.code === KIS_CODE.TOKEN_EXPIRED) throw http.upstreamError(`${failure.code} ${failure.message}: a token issued just now was refused`, url);
      if (failure) return { failure: `${failure.code} ${failure.message}`.trim() };
      if (res.status === 500) throw http.upstreamError('HTTP 500 without an error code', url);
      const flows = parseInvestorTrend(body, code);
      return flows === null ? { failure: 'answer without an output list' } : { flows };
    }
  }

  async ingest(ctx: SourceContext): Promise<SourceResult> {
    const secrets = [this.config.appSecret, this.config.appKey];
    const http = clientForRun(this.name, ctx, this.config, { limiter: this.limiter, meter: this.meter, secrets });
    this.meter.restore(ctx.calls);
    let cursor = readKisCursor(ctx.cursor);
    if (cursor === null) {
      ctx.log.warn('kis: unreadable cursor, starting afresh');
      cursor = new Map();
    }
    const taken: KisCursor = cursor;
    // Sessions closed by the previous Seoul day: a day's figures are final by then (KIS fills
    // today's row only after the close), and the price adapters' newest bar is that day too.
    const to = closedSessionsThrough('KR', ctx, ctx.range?.to ?? addDays(ctx.asOf, -1));
    const from = ctx.range?.from ?? null;
    const universe = ctx.universe ? await ctx.universe('KR') : [];
    if (!ctx.universe) ctx.log.warn('kis: no universe of listed stocks given; nothing to ask');
    // Never asked first, then the longest behind; a backfill asks every stock once.
    const behind = universe
      .filter((code) => /^\d{6}$/.test(code) && (ctx.range !== undefined || (taken.get(code) ?? '') < to))
      .sort((a, b) => (taken.get(a) ?? '').localeCompare(taken.get(b) ?? '') || a.localeCompare(b));
    const due = behind.slice(0, this.config.maxStocksPerRun ?? 4_000);
    const plan = new CallPlan(ctx.progress, this.meter, { unit: 'stocks', total: due.length, callsPerUnit: 1, perCallMs: this.limiter.minIntervalMs });
    plan.start(due.length > 0 ? `investor trend per stock (inquire-investor), through ${to}` : undefined);
    const flows: InvestorFlow[] = [];
    const next = new Map(taken);
    const skipped: Record<string, number> = {};
    let answered = 0;
    let firstFailure: string | null = null;
    for (const code of due) {
      const got = await this.investorTrend(http, secrets, code);
      plan.step();
      if ('failure' in got) {
        const reason = `inquire-investor ${got.failure}`;
        skipped[reason] = (skipped[reason] ?? 0) + 1;
        firstFailure ??= `${code}: ${got.failure}`;
        continue;
      }
      answered++;
      const after = from !== null ? addDays(from, -1) : (taken.get(code) ?? '');
      let newest = taken.get(code) ?? '';
      for (const f of got.flows) {
        if (f.date > to) continue;
        if (f.date > newest) newest = f.date;
        if (f.date > after) flows.push(f);
      }
      if (!ctx.range && newest !== '') next.set(code, newest);
    }
    // Every stock refused the same way is the account or the key, not the stocks: say so.
    if (due.length > 0 && answered === 0 && firstFailure !== null) {
      throw http.upstreamError(`every inquire-investor call of the run was refused (first: ${firstFailure})`, `${this.baseUrl}${INVESTOR_PATH}`);
    }
    const left = behind.length - due.length;
    if (left > 0) plan.rest(`${left} ${left === 1 ? 'stock' : 'stocks'} left past this run's bound of ${due.length}: the next run continues`);
    else plan.finish();
    ctx.log.info('kis: ingested', { flows: flows.length, stocks: due.length, answered, through: to, tokenIssuances: this.tokens.issuances });
    return {
      data: { flows },
      cursor: ctx.range ? (ctx.cursor ?? writeKisCursor(taken)) : writeKisCursor(next),
      calls: this.meter.state(),
      ...(Object.keys(skipped).length > 0 ? { skipped } : {}),
    };
  }
}
