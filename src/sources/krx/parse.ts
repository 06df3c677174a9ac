// Parser for the KRX Data Marketplace (data.krx.co.kr) screen [12010] 투자자별 순매수상위종목,
// bld `dbms/MDC/STAT/standard/MDCSTAT02401`: one investor type, one market, every stock.
// Answer: `{"output":[{"ISU_SRT_CD":"005930","ISU_NM":"삼성전자","ASK_TRDVOL":"12,345",
//   "BID_TRDVOL":"...","NETBID_TRDVOL":"-1,234","ASK_TRDVAL":"...","BID_TRDVAL":"...",
//   "NETBID_TRDVAL":"-81,234,500"}],"CurrentDatetime":"2024.11.20 PM 06:10:03"}`. Some other
// MDC screens name the list `OutBlock_1`; both are accepted. Values are comma-grouped strings
// in won when requested with money=1.

import type { DailyBar, InvestorFlow, Security } from '../../domain/model.js';
import { isRecord, parseAmount, str } from '../shared/parse.js';

export const SOURCE_NAME = 'krx';

/** Investor type codes of invstTpCd (KRX MDC). */
export const INVESTOR = { FOREIGN: '9000', INSTITUTION: '7050' } as const;

export interface NetBuyRow {
  code: string;
  name: string;
  /** Net buying value in won (NETBID_TRDVAL = BID_TRDVAL - ASK_TRDVAL). */
  netValue: number;
}

/** Null when the body is not an MDC JSON answer (e.g. the literal `LOGOUT` of an expired session). */
export function parseNetBuying(body: unknown): NetBuyRow[] | null {
  if (!isRecord(body)) return null;
  const list = Array.isArray(body['output']) ? body['output'] : Array.isArray(body['OutBlock_1']) ? body['OutBlock_1'] : null;
  if (list === null) return null;
  const out: NetBuyRow[] = [];
  for (const r of list) {
    if (!isRecord(r)) continue;
    const code = str(r, 'ISU_SRT_CD').trim();
    let net = parseAmount(str(r, 'NETBID_TRDVAL'));
    if (net === null) {
      const bid = parseAmount(str(r, 'BID_TRDVAL'));
      const ask = parseAmount(str(r, 'ASK_TRDVAL'));
      net = bid !== null && ask !== null ? bid - ask : null;
    }
    if (!/^\d{6}$/.test(code) || net === null) continue;
    out.push({ code, name: str(r, 'ISU_NM').trim(), netValue: net });
  }
  return out;
}

/** Joins the foreign and institution lists of one date into flows; a stock missing from one list had no net buying by that type. */
export function mergeFlows(date: string, foreign: NetBuyRow[], institution: NetBuyRow[]): InvestorFlow[] {
  const byCode = new Map<string, InvestorFlow>();
  const get = (code: string): InvestorFlow => {
    let f = byCode.get(code);
    if (!f) {
      f = { market: 'KR', code, date, foreignNet: 0, institutionNet: 0, source: SOURCE_NAME };
      byCode.set(code, f);
    }
    return f;
  };
  for (const r of foreign) get(r.code).foreignNet += r.netValue;
  for (const r of institution) get(r.code).institutionNet += r.netValue;
  return [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/**
 * Screen [12001] 전종목 시세, bld `dbms/MDC/STAT/standard/MDCSTAT01501` (FORMATS.md section 4):
 * every stock of a market on one date (`trdDd`), `{"OutBlock_1":[{ISU_SRT_CD, ISU_CD, ISU_ABBRV,
 * MKT_NM, SECT_TP_NM, TDD_CLSPRC, FLUC_TP_CD, CMPPREVDD_PRC, FLUC_RT, TDD_OPNPRC, TDD_HGPRC,
 * TDD_LWPRC, ACC_TRDVOL, ACC_TRDVAL, MKTCAP, LIST_SHRS, MKT_ID}], "CURRENT_DATETIME":...}`; values
 * comma-grouped strings, `-` for prices on a day without trading.
 */
export interface MarketDayRow {
  bar: DailyBar;
  security: Security;
}

const MARKET_OF: Readonly<Record<string, string>> = { KOSPI: 'KOSPI', KOSDAQ: 'KOSDAQ', 'KOSDAQ GLOBAL': 'KOSDAQ' };

/**
 * The rows of one date: KOSPI and KOSDAQ (KOSDAQ GLOBAL is a KOSDAQ segment) with a six-digit
 * code and a close; KONEX and `-` rows are left out. A suspended stock reports open/high/low `0`:
 * they take the close. Null when the body is not the screen's answer.
 */
export function parseMarketDay(body: unknown, date: string): MarketDayRow[] | null {
  if (!isRecord(body) || !Array.isArray(body['OutBlock_1'])) return null;
  const out: MarketDayRow[] = [];
  for (const r of body['OutBlock_1']) {
    if (!isRecord(r)) continue;
    const code = str(r, 'ISU_SRT_CD').trim();
    const exchange = MARKET_OF[str(r, 'MKT_NM').trim()];
    const close = parseAmount(str(r, 'TDD_CLSPRC'));
    if (!/^\d{6}$/.test(code) || exchange === undefined || close === null || close <= 0) continue;
    const price = (k: string): number => {
      const v = parseAmount(str(r, k));
      return v === null || v <= 0 ? close : v;
    };
    const shares = parseAmount(str(r, 'LIST_SHRS')) ?? 0;
    out.push({
      bar: {
        market: 'KR', code, date, open: price('TDD_OPNPRC'), high: price('TDD_HGPRC'), low: price('TDD_LWPRC'), close,
        volume: parseAmount(str(r, 'ACC_TRDVOL')) ?? 0, tradedValue: parseAmount(str(r, 'ACC_TRDVAL')) ?? 0,
        shares, marketCap: parseAmount(str(r, 'MKTCAP')) ?? close * shares, source: SOURCE_NAME,
      },
      security: {
        market: 'KR', code, name: str(r, 'ISU_ABBRV').trim(), exchange,
        // The screen carries no industry (SECT_TP_NM is the KOSDAQ tier, not a sector).
        sector: 'Unclassified', currency: 'KRW', fiscalYearEndMonth: 12, source: SOURCE_NAME,
      },
    });
  }
  return out;
}
