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

/** Polygon writes share classes with a dot-less suffix in some feeds (BRK.B is "BRK.B"); keep upper case and dots. */
export const normaliseTicker = (t: string): string => t.toUpperCase().replace(/-/g, '.');

/**
 * Bars for tickers whose shares are known. Traded value is approximated as
 * volume x volume-weighted average price (the feed has no traded-value field).
 */
export function toDailyBars(date: string, bars: GroupedBar[], shares: ReadonlyMap<string, number>): { bars: DailyBar[]; skipped: number } {
  const out: DailyBar[] = [];
  let skipped = 0;
  for (const b of bars) {
    const code = normaliseTicker(b.ticker);
    const s = shares.get(code);
    if (s === undefined || s <= 0) {
      skipped++;
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
