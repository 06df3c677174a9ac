// Parsers for the KRX Open API (openapi.krx.co.kr; the calls go to data-dbg.krx.co.kr/svc/apis),
// the exchange's own API with an issued key (header AUTH_KEY), one service per market and date:
//
// - 유가증권 일별매매정보 `sto/stk_bydd_trd` and 코스닥 일별매매정보 `sto/ksq_bydd_trd`, `?basDd=YYYYMMDD`:
//   `{"OutBlock_1":[{BAS_DD, ISU_CD, ISU_NM, MKT_NM, SECT_TP_NM, TDD_CLSPRC, CMPPREVDD_PRC, FLUC_RT,
//   TDD_OPNPRC, TDD_HGPRC, TDD_LWPRC, ACC_TRDVOL, ACC_TRDVAL, MKTCAP, LIST_SHRS}]}`, every stock of
//   the market that day. `ISU_CD` is the six-character short code here (`005930`); values are
//   strings of digits without separators; a stock without trades that day has open/high/low `0`.
// - 유가증권/코스닥 종목기본정보 `sto/stk_isu_base_info`, `sto/ksq_isu_base_info`:
//   `{"OutBlock_1":[{ISU_CD (the ISIN here), ISU_SRT_CD, ISU_NM, ISU_ABBRV, ISU_ENG_NM, LIST_DD,
//   MKT_TP_NM, SECUGRP_NM, SECT_TP_NM, KIND_STKCERT_TP_NM, PARVAL, LIST_SHRS}]}`.
// - A day without trading (a holiday, a date not yet published) is `{"OutBlock_1":[]}`; a key
//   refused answers HTTP 401 `{"respMsg":"Unauthorized Key","respCode":"401"}`, a key without the
//   service's approval `{"respMsg":"Unauthorized API Call","respCode":"401"}`.
// Real answers of 2024-01-04 and 2024-01-05 are in test/fixtures/real/krx-openapi/.

import type { DailyBar, Security } from '../../domain/model.js';
import { isRecord, parseAmount, str, toIsoDate } from '../shared/parse.js';

export const SOURCE_NAME = 'krx-openapi';

/** The daily trading service of each market, and its listing (base information) service. */
export const MARKET_SERVICES = [
  { market: 'KOSPI', trades: 'sto/stk_bydd_trd', listing: 'sto/stk_isu_base_info' },
  { market: 'KOSDAQ', trades: 'sto/ksq_bydd_trd', listing: 'sto/ksq_isu_base_info' },
] as const;

const EXCHANGE_OF: Readonly<Record<string, string>> = { KOSPI: 'KOSPI', KOSDAQ: 'KOSDAQ', 'KOSDAQ GLOBAL': 'KOSDAQ' };

/** The rows of an answer (`OutBlock_1`); null when the body is not one. */
export function outBlock(body: unknown): Record<string, unknown>[] | null {
  if (!isRecord(body) || !Array.isArray(body['OutBlock_1'])) return null;
  return body['OutBlock_1'].filter(isRecord);
}

/** The API's refusal (`respCode`, `respMsg`), or null when the body is not one. */
export function refusal(body: unknown): { code: string; message: string } | null {
  if (!isRecord(body) || body['OutBlock_1'] !== undefined) return null;
  const code = str(body, 'respCode');
  const message = str(body, 'respMsg');
  return code || message ? { code, message } : null;
}

export interface DayRow {
  bar: DailyBar;
  security: Security;
}

/**
 * One daily-trading row to a bar and its security, or null for a row the service does not take:
 * a code that is not six digits (`00104K`, a class of shares with a letter), a market other than
 * KOSPI/KOSDAQ, or no close. Open, high and low of `0` (no trade that day) take the close. The
 * date is the row's BAS_DD, else the date asked for.
 */
export function parseTradeRow(r: Record<string, unknown>, asked: string): DayRow | null {
  const code = str(r, 'ISU_CD').trim();
  const exchange = EXCHANGE_OF[str(r, 'MKT_NM').trim()];
  const close = parseAmount(str(r, 'TDD_CLSPRC'));
  if (!/^\d{6}$/.test(code) || exchange === undefined || close === null || close <= 0) return null;
  const date = toIsoDate(str(r, 'BAS_DD')) ?? asked;
  const price = (k: string): number => {
    const v = parseAmount(str(r, k));
    return v === null || v <= 0 ? close : v;
  };
  const shares = parseAmount(str(r, 'LIST_SHRS')) ?? 0;
  return {
    bar: {
      market: 'KR',
      code,
      date,
      open: price('TDD_OPNPRC'),
      high: price('TDD_HGPRC'),
      low: price('TDD_LWPRC'),
      close,
      volume: parseAmount(str(r, 'ACC_TRDVOL')) ?? 0,
      tradedValue: parseAmount(str(r, 'ACC_TRDVAL')) ?? 0,
      shares,
      marketCap: parseAmount(str(r, 'MKTCAP')) ?? close * shares,
      source: SOURCE_NAME,
    },
    security: {
      market: 'KR',
      code,
      name: str(r, 'ISU_NM').trim(),
      exchange,
      // The service carries no industry (SECT_TP_NM is the KOSDAQ tier, 우량기업부 and so on).
      sector: 'Unclassified',
      currency: 'KRW',
      fiscalYearEndMonth: 12,
      source: SOURCE_NAME,
    },
  };
}

export interface ListingRow {
  code: string;
  /** ISU_ENG_NM, null when blank. */
  nameEn: string | null;
  /** LIST_DD as `YYYY-MM-DD`, null when not a date. */
  listedOn: string | null;
  /** KIND_STKCERT_TP_NM: 보통주, 구형우선주, 신형우선주, 종류주권. */
  kind: string;
}

/** The listing rows by six-digit short code (ISU_SRT_CD); other codes are left out. */
export function parseListing(rows: readonly Record<string, unknown>[]): Map<string, ListingRow> {
  const out = new Map<string, ListingRow>();
  for (const r of rows) {
    const code = str(r, 'ISU_SRT_CD').trim();
    if (!/^\d{6}$/.test(code)) continue;
    const nameEn = str(r, 'ISU_ENG_NM').trim();
    out.set(code, { code, nameEn: nameEn || null, listedOn: toIsoDate(str(r, 'LIST_DD')), kind: str(r, 'KIND_STKCERT_TP_NM').trim() });
  }
  return out;
}
