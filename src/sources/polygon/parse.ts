// Parser for Polygon.io grouped daily bars (whole US market, one day):
// GET /v2/aggs/grouped/locale/us/market/stocks/{date}?adjusted=true
// `{"queryCount":..,"resultsCount":..,"adjusted":true,"results":[{"T":"AAPL","v":..,"vw":..,
//   "o":..,"c":..,"h":..,"l":..,"t":1700600400000,"n":..}],"status":"OK","request_id":".."}`.
// Shares outstanding are not in the feed: they come from SEC's XBRL frames for
// dei:EntityCommonStockSharesOutstanding (parsed here too).

import type { DailyBar } from '../../domain/model.js';
import { isRecord, str } from '../shared/parse.js';

export const SOURCE_NAME = 'polygon';

export interface GroupedBar {
  ticker: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  vwap: number | null;
}

/** Null when not the documented envelope; an empty `results` (holiday) is []. */
export function parseGrouped(body: unknown): { status: string; bars: GroupedBar[] } | null {
  if (!isRecord(body) || typeof body['status'] !== 'string') return null;
  const results = Array.isArray(body['results']) ? body['results'] : [];
  const bars: GroupedBar[] = [];
  for (const r of results) {
    if (!isRecord(r)) continue;
    const n = (k: string): number | null => (typeof r[k] === 'number' && Number.isFinite(r[k]) ? (r[k] as number) : null);
    const [o, h, l, c, v] = [n('o'), n('h'), n('l'), n('c'), n('v')];
    const ticker = str(r, 'T').trim();
    if (ticker === '' || o === null || h === null || l === null || c === null || v === null) continue;
    bars.push({ ticker, open: o, high: h, low: l, close: c, volume: v, vwap: n('vw') });
  }
  return { status: body['status'], bars };
}

/** Why a grouped-daily row gives no bar: the keys of `SourceResult.skipped`. */
export const SKIPPED = {
  notCommon: 'preferred, warrant, right or unit ticker',
  noShares: 'no SEC shares outstanding for the ticker',
} as const;

/**
 * The ticker of a grouped-daily row when it can be common stock, or null. Polygon marks
 * preferred shares, warrants, rights and units with a lower-case suffix (`PEBpF` = PEB
 * preferred series F, `PHXEp`, `BCpC`, `AIIAr` a right, `BCATrw` a right when issued);
 * upper-casing one makes another company's ticker (`PEBPF`), so they are never upper-cased:
 * they are not the common stock of an SEC registrant and are skipped. Dotted warrant, unit and
 * right suffixes (`NE.WS.A`, `SBXD.U`, `.RT`) likewise. Share classes keep their dot (`BRK.B`),
 * as SEC's company_tickers.json writes them once normalised; a dash is read as that dot.
 */
export function commonStockTicker(ticker: string): string | null {
  if (/[a-z]/.test(ticker)) return null;
  const code = ticker.replace(/-/g, '.');
  if (/\.(WS|U|RT)(\.|$)/.test(code)) return null;
  return code;
}

/**
 * Bars for common-stock tickers whose shares are known; the other rows are counted by reason
 * (`SKIPPED`). Traded value is approximated as volume x volume-weighted average price (the
 * feed has no traded-value field).
 */
export function toDailyBars(date: string, bars: GroupedBar[], shares: ReadonlyMap<string, number>): { bars: DailyBar[]; skipped: Record<string, number> } {
  const out: DailyBar[] = [];
  const skipped: Record<string, number> = {};
  const skip = (reason: string): void => void (skipped[reason] = (skipped[reason] ?? 0) + 1);
  for (const b of bars) {
    const code = commonStockTicker(b.ticker);
    if (code === null) {
      skip(SKIPPED.notCommon);
      continue;
    }
    const s = shares.get(code);
    if (s === undefined || s <= 0) {
      skip(SKIPPED.noShares);
      continue;
    }
    out.push({
      market: 'US',
      code,
      date,
      open: b.open,
      high: b.high,
      low: b.low,
      close: b.close,
      volume: b.volume,
      tradedValue: b.volume * (b.vwap ?? b.close),
      shares: s,
      marketCap: b.close * s,
      source: SOURCE_NAME,
    });
  }
  return { bars: out, skipped };
}

/** SEC frames: `{"tag":"EntityCommonStockSharesOutstanding","uom":"shares","data":[{"accn","cik","entityName","loc","end","val"}]}`. Latest `end` per CIK. */
export function parseSharesFrame(body: unknown): Map<number, { end: string; val: number }> | null {
  if (!isRecord(body) || !Array.isArray(body['data'])) return null;
  const out = new Map<number, { end: string; val: number }>();
  for (const d of body['data']) {
    if (!isRecord(d) || typeof d['cik'] !== 'number' || typeof d['val'] !== 'number') continue;
    const end = str(d, 'end');
    const prev = out.get(d['cik']);
    if (!prev || end > prev.end) out.set(d['cik'], { end, val: d['val'] });
  }
  return out;
}
