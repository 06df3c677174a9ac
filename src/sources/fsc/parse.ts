// Parser for the FSC stock price open API on data.go.kr
// (금융위원회_주식시세정보, GetStockSecuritiesInfoService/getStockPriceInfo, resultType=json):
// `{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL SERVICE."},"body":{"numOfRows":..,
//   "pageNo":..,"totalCount":..,"items":{"item":[{basDt, srtnCd, isinCd, itmsNm, mrktCtg, clpr, vs,
//   fltRt, mkp, hipr, lopr, trqu, trPrc, lstgStCnt, mrktTotAmt}]}}}}`; every value a string.

import type { DailyBar, Security } from '../../domain/model.js';
import { isRecord, parseAmount, str, toIsoDate } from '../shared/parse.js';

export const SOURCE_NAME = 'fsc';

export interface FscPage {
  resultCode: string;
  resultMsg: string;
  pageNo: number;
  numOfRows: number;
  totalCount: number;
  items: Record<string, unknown>[];
}

/** Null when the body is not the documented envelope. */
export function parseFscPage(body: unknown): FscPage | null {
  if (!isRecord(body) || !isRecord(body['response'])) return null;
  const response = body['response'];
  const header = isRecord(response['header']) ? response['header'] : {};
  const b = isRecord(response['body']) ? response['body'] : {};
  // An empty result comes back as `"items": ""`; a single row may be an object, not an array.
  const itemsNode = b['items'];
  let items: Record<string, unknown>[] = [];
  if (isRecord(itemsNode)) {
    const item = itemsNode['item'];
    if (Array.isArray(item)) items = item.filter(isRecord);
    else if (isRecord(item)) items = [item];
  }
  return {
    resultCode: str(header, 'resultCode'),
    resultMsg: str(header, 'resultMsg'),
    pageNo: Number(b['pageNo'] ?? 1) || 1,
    numOfRows: Number(b['numOfRows'] ?? items.length) || items.length,
    totalCount: Number(b['totalCount'] ?? items.length) || 0,
    items,
  };
}

const EXCHANGES = new Set(['KOSPI', 'KOSDAQ']);

export interface FscRow {
  bar: DailyBar;
  security: Security;
}

/**
 * One item to a bar and its security. KONEX and rows without a six-digit code are skipped
 * (the service covers KOSPI and KOSDAQ). A stock that did not trade (suspension) reports
 * mkp/hipr/lopr as "0": open, high and low then take the close.
 */
export function parseFscItem(item: Record<string, unknown>): FscRow | null {
  const date = toIsoDate(str(item, 'basDt'));
  let code = str(item, 'srtnCd').trim();
  if (/^A\d{6}$/.test(code)) code = code.slice(1);
  const exchange = str(item, 'mrktCtg').trim();
  const close = parseAmount(str(item, 'clpr'));
  if (date === null || !/^\d{6}$/.test(code) || !EXCHANGES.has(exchange) || close === null || close <= 0) return null;
  const price = (k: string): number => {
    const v = parseAmount(str(item, k));
    return v === null || v <= 0 ? close : v;
  };
  const shares = parseAmount(str(item, 'lstgStCnt')) ?? 0;
  const bar: DailyBar = {
    market: 'KR',
    code,
    date,
    open: price('mkp'),
    high: price('hipr'),
    low: price('lopr'),
    close,
    volume: parseAmount(str(item, 'trqu')) ?? 0,
    tradedValue: parseAmount(str(item, 'trPrc')) ?? 0,
    shares,
    marketCap: parseAmount(str(item, 'mrktTotAmt')) ?? close * shares,
    source: SOURCE_NAME,
  };
  const security: Security = {
    market: 'KR',
    code,
    name: str(item, 'itmsNm').trim(),
    exchange,
    // The price feed carries no industry; see docs/sources.md.
    sector: 'Unclassified',
    currency: 'KRW',
    fiscalYearEndMonth: 12,
    source: SOURCE_NAME,
  };
  return { bar, security };
}
