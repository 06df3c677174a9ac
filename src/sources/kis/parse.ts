// Parsers for the Korea Investment & Securities open API (KIS Developers), over its own formats.
//
// 주식현재가 투자자 [v1_국내주식-012], GET /uapi/domestic-stock/v1/quotations/inquire-investor,
// tr_id FHKST01010900 (koreainvestment/open-trading-api examples_llm/domestic_stock/inquire_investor):
// `{"output":[{"stck_bsop_date":"20240610","stck_clpr":"75700",...,"frgn_ntby_qty":"-1893335",
// "orgn_ntby_qty":"-2315098","prsn_ntby_tr_pbmn":"311359","frgn_ntby_tr_pbmn":"-143714",
// "orgn_ntby_tr_pbmn":"-175760",...}],"rt_cd":"0","msg_cd":"MCA00000","msg1":"정상처리 되었습니다."}`:
// one stock's recent sessions, newest first. `frgn` is foreigners (registered and other foreign
// investors), `orgn` 기관계, all institutions together. The `*_tr_pbmn` amounts are in millions of
// won: in the recorded answer (test/fixtures/real/kis) buying minus selling gives the net within
// the rounding of each (236,549 - 380,262 = -143,713 against -143,714), and the foreign buying
// volume 3,111,002 shares at about 76,000 won is 236,436 million. Today's session is answered
// with empty strings until after the close (the sample's note "당일 데이터는 장 종료 후 제공").
//
// Errors come as `{"rt_cd":"1","msg_cd":"EGW00201","msg1":"초당 거래건수를 초과하였습니다."}` (over the
// call rate, HTTP 500) or `EGW00123` 기간이 만료된 token 입니다 (the access token expired); the token
// issuance answers `{"error_code":"EGW00133","error_description":"접근토큰 발급 잠시 후 다시
// 시도하세요(1분당 1회)"}` with HTTP 403 when asked again within a minute.

import type { InvestorFlow } from '../../domain/model.js';
import { isRecord, parseAmount, str, toIsoDate } from '../shared/parse.js';

export const SOURCE_NAME = 'kis';

/** The provider's codes the adapter acts on. */
export const KIS_CODE = {
  /** 초당 거래건수를 초과하였습니다: over the per-second call rate. */
  RATE: 'EGW00201',
  /** 기간이 만료된 token 입니다: the access token expired (or was revoked). */
  TOKEN_EXPIRED: 'EGW00123',
  /** 접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회): a token asked for again within a minute. */
  TOKEN_TOO_SOON: 'EGW00133',
} as const;

/** Millions of won per unit of the `*_tr_pbmn` amounts. */
export const WON_PER_PBMN_UNIT = 1_000_000;

/** An answer's error envelope: `rt_cd` other than "0", or a token answer's `error_code`. Null on success. */
export interface KisFailure {
  code: string;
  message: string;
}

export function kisFailure(body: unknown): KisFailure | null {
  if (!isRecord(body)) return null;
  const errorCode = str(body, 'error_code').trim();
  if (errorCode !== '') return { code: errorCode, message: str(body, 'error_description').trim() };
  const rt = str(body, 'rt_cd').trim();
  if (rt === '' || rt === '0') return null;
  return { code: str(body, 'msg_cd').trim() || `rt_cd ${rt}`, message: str(body, 'msg1').trim() };
}

/**
 * One stock's flows from an inquire-investor answer: every session with both the foreign and
 * the institutional net buying filled, in won. Null when the body is not that answer (no
 * `output` list). A row without a date or with an empty amount (today's before the close) is
 * left out: an empty field is "not yet reported", never zero.
 */
export function parseInvestorTrend(body: unknown, code: string): InvestorFlow[] | null {
  if (!isRecord(body) || !Array.isArray(body['output'])) return null;
  const out: InvestorFlow[] = [];
  for (const r of body['output']) {
    if (!isRecord(r)) continue;
    const date = toIsoDate(str(r, 'stck_bsop_date'));
    const foreign = parseAmount(str(r, 'frgn_ntby_tr_pbmn'));
    const institution = parseAmount(str(r, 'orgn_ntby_tr_pbmn'));
    if (date === null || foreign === null || institution === null) continue;
    out.push({ market: 'KR', code, date, foreignNet: foreign * WON_PER_PBMN_UNIT, institutionNet: institution * WON_PER_PBMN_UNIT, source: SOURCE_NAME });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

/** An access token and when it stops being accepted (ms since the epoch). */
export interface IssuedToken {
  accessToken: string;
  expiresAt: number;
}

/**
 * The token answer of POST /oauth2/tokenP: `{"access_token":"...","access_token_token_expired":
 * "2024-01-02 00:00:00","token_type":"Bearer","expires_in":86400}`. The expiry is the stated
 * instant (Asia/Seoul wall time), else `issuedAt` plus `expires_in` seconds. Null when the body
 * holds no token or no usable expiry.
 */
export function parseToken(body: unknown, issuedAt: number): IssuedToken | null {
  if (!isRecord(body)) return null;
  const accessToken = str(body, 'access_token').trim();
  if (accessToken === '') return null;
  const stated = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(str(body, 'access_token_token_expired').trim());
  if (stated) {
    const at = Date.parse(`${stated[1]}T${stated[2]}+09:00`);
    if (Number.isFinite(at)) return { accessToken, expiresAt: at };
  }
  const seconds = parseAmount(str(body, 'expires_in'));
  if (seconds === null || seconds <= 0) return null;
  return { accessToken, expiresAt: issuedAt + seconds * 1000 };
}
