// The replica's Korea Investment & Securities open API: the token issuance and the per-stock
// investor trend (주식현재가 투자자, inquire-investor) the KIS flows adapter calls, with the
// provider's documented limits judged on the rehearsal's clock:
// - POST /oauth2/tokenP: an app key and secret the replica knows; a token valid 24 hours; asked
//   again within six hours, the same token (the official sample's note "6시간 이내 발급신청시는
//   기존 토큰값과 동일"); at most one issuance a minute, else HTTP 403 EGW00133.
// - GET /uapi/domestic-stock/v1/quotations/inquire-investor (tr_id FHKST01010900): the token,
//   app key and secret in the headers, else HTTP 500 EGW00123 for a token it did not issue or
//   that expired; 20 calls a second (limits.ts; past it HTTP 500 EGW00201, kisRateRefusal).
// The answer is CONSTRUCTED in the recorded answer's format (test/fixtures/real/kis): the last
// 30 weekdays newest first, today's row empty strings (KIS fills it after the close), amounts in
// millions of won. The net buying is the KRX replica's (api.ts krxData) for the same copy and day,
// so either flows source gives the same supply figures.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Answer } from './api.js';
import { epochDay, isoOfDay, isWeekday, priceOn, unit, type KrCompany, type Universe } from './universe.js';

/** The app the replica's KIS knows (an operator's KIS_APP_KEY / KIS_APP_SECRET). */
export const KIS_APP = { key: 'PSreplicaAppKey00000000000000000000', secret: 'replicaAppSecret0000000000000000000000000000000000000000' } as const;

const TOKEN_LIFE_MS = 24 * 3_600_000;
const SAME_TOKEN_WITHIN_MS = 6 * 3_600_000;
const ISSUE_EVERY_MS = 60_000;
const SESSIONS = 30;
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

const json = (body: unknown, status = 200): Answer => ({ status, headers: JSON_TYPE, body: JSON.stringify(body) });
const kisError = (status: number, msgCd: string, msg1: string): Answer => json({ rt_cd: '1', msg_cd: msgCd, msg1 }, status);

/** The answer past the documented call rate. */
export const kisRateRefusal = (): Answer => kisError(500, 'EGW00201', '초당 거래건수를 초과하였습니다.');

/** `YYYY-MM-DD HH:MM:SS` in Seoul wall time. */
const seoulWallTime = (ms: number): string => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

export class KisApi {
  private readonly byCode: Map<string, KrCompany>;
  private current: { token: string; issuedAt: number; expiresAt: number } | null = null;
  private lastIssue = Number.NEGATIVE_INFINITY;
  private readonly expiries = new Map<string, number>();
  /** Tokens issued (a new one or the same again) and issuances refused as too soon. */
  readonly counts = { issued: 0, tooSoon: 0, badToken: 0 };

  constructor(
    universe: Universe,
    private readonly now: () => number,
    private readonly today: () => string,
  ) {
    this.byCode = new Map(universe.kr.map((c) => [c.stockCode, c]));
  }

  answer(req: IncomingMessage, sub: string, body: string, q: URLSearchParams): Answer {
    if (sub === '/oauth2/tokenP' && req.method === 'POST') return this.issue(body);
    if (sub === '/uapi/domestic-stock/v1/quotations/inquire-investor') return this.investor(req, q);
    return { status: 404, body: 'Not Found' };
  }

  private issue(body: string): Answer {
    let asked: Record<string, unknown> = {};
    try {
      asked = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return json({ error_code: 'EGW00002', error_description: '서버 에러가 발생했습니다.' }, 400);
    }
    if (asked['grant_type'] !== 'client_credentials' || asked['appkey'] !== KIS_APP.key || asked['appsecret'] !== KIS_APP.secret) {
      return json({ error_code: 'EGW00103', error_description: '유효하지 않은 AppKey입니다.' }, 403);
    }
    const now = this.now();
    if (now - this.lastIssue < ISSUE_EVERY_MS) {
      this.counts.tooSoon++;
      return json({ error_code: 'EGW00133', error_description: '접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)' }, 403);
    }
    this.lastIssue = now;
    this.counts.issued++;
    if (!this.current || now - this.current.issuedAt >= SAME_TOKEN_WITHIN_MS) {
      this.current = { token: `replica.${randomBytes(24).toString('base64url')}`, issuedAt: now, expiresAt: now + TOKEN_LIFE_MS };
      this.expiries.set(this.current.token, this.current.expiresAt);
    }
    const { token, expiresAt } = this.current;
    return json({ access_token: token, access_token_token_expired: seoulWallTime(expiresAt), token_type: 'Bearer', expires_in: Math.round((expiresAt - now) / 1000) });
  }

  private investor(req: IncomingMessage, q: URLSearchParams): Answer {
    const token = (req.headers['authorization'] ?? '').replace(/^Bearer /, '');
    const expiresAt = this.expiries.get(token);
    if (req.headers['appkey'] !== KIS_APP.key || req.headers['appsecret'] !== KIS_APP.secret || expiresAt === undefined || expiresAt <= this.now()) {
      this.counts.badToken++;
      return kisError(500, 'EGW00123', '기간이 만료된 token 입니다.');
    }
    if (req.headers['tr_id'] !== 'FHKST01010900') return kisError(500, 'EGW00202', 'GW라우팅 중 오류가 발생했습니다.');
    const c = this.byCode.get(q.get('FID_INPUT_ISCD') ?? '');
    if (q.get('FID_COND_MRKT_DIV_CODE') !== 'J' || c === undefined) return json({ output: [], rt_cd: '0', msg_cd: 'MCA00000', msg1: '정상처리 되었습니다.' });
    const output: Record<string, string>[] = [];
    const today = this.today();
    for (let day = epochDay(today); output.length < SESSIONS; day--) {
      if (!isWeekday(day)) continue;
      output.push(investorRow(c, day, isoOfDay(day) >= today));
    }
    return json({ output, rt_cd: '0', msg_cd: 'MCA00000', msg1: '정상처리 되었습니다.' });
  }
}

const FIELDS = ['ntby_qty', 'ntby_tr_pbmn', 'shnu_vol', 'shnu_tr_pbmn', 'seln_vol', 'seln_tr_pbmn'] as const;

/** One session of a copy, as KIS lays it out; `pending`: today's row before KIS fills it. */
function investorRow(c: KrCompany, day: number, pending: boolean): Record<string, string> {
  const close = Math.round(priceOn(c.basePrice, c.index, day).close);
  const prev = Math.round(priceOn(c.basePrice, c.index, day - 1).close);
  const head = { stck_bsop_date: isoOfDay(day).replace(/-/g, ''), stck_clpr: String(close), prdy_vrss: String(close - prev), prdy_vrss_sign: close > prev ? '2' : close < prev ? '5' : '3' };
  const names = ['prsn', 'frgn', 'orgn'] as const;
  if (pending) {
    const empty: Record<string, string> = {};
    for (const k of FIELDS) for (const n of names) empty[`${n}_${k}`] = '';
    return { ...head, ...empty };
  }
  // The KRX replica's net buying in won for investor types 9000 (foreign) and 7050 (institutions), in millions.
  const netMillion = (investor: number): number => Math.round(((unit(c.index * 31 + day + investor) - 0.5) * 2e10) / 1e6);
  const frgn = netMillion(9000);
  const orgn = netMillion(7050);
  const net = { prsn: -(frgn + orgn), frgn, orgn };
  const values: Record<string, number> = {};
  for (const n of names) {
    const base = Math.round(unit(c.index * 7 + day + n.length) * 10_000);
    const buy = base + Math.max(0, net[n]);
    const sell = base + Math.max(0, -net[n]);
    Object.assign(values, {
      [`${n}_ntby_qty`]: Math.round((net[n] * 1e6) / close), [`${n}_ntby_tr_pbmn`]: net[n],
      [`${n}_shnu_vol`]: Math.round((buy * 1e6) / close), [`${n}_shnu_tr_pbmn`]: buy,
      [`${n}_seln_vol`]: Math.round((sell * 1e6) / close), [`${n}_seln_tr_pbmn`]: sell,
    });
  }
  // In the recorded answer's key order: each figure for individuals, foreigners, institutions.
  const row: Record<string, string> = { ...head };
  for (const k of FIELDS) for (const n of names) row[`${n}_${k}`] = String(values[`${n}_${k}`] ?? 0);
  return row;
}
