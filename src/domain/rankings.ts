// Rankings: rows sorted by gapPct, highest first (the published order of the ranking), filtered
// by market and band.
//
// Built for ~8,700 stocks per refresh and many requests per refresh: each market is sorted
// once (`rankingIndex`); a request is one linear pass per requested market plus a merge of at
// most two `limit`-long lists.

import type { Market } from './model.js';
import type { BandKey, RankingRow } from './results.js';

type Ranked = Pick<RankingRow, 'gapPct' | 'score' | 'ticker' | 'market'>;

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The ranking order: gapPct descending, then score descending, then ticker ascending, then
 * market (KR before US). Tickers compare by code unit, not locale, so the order is the same
 * on every host.
 */
export function compareRankingRows(a: Ranked, b: Ranked): number {
  if (a.gapPct !== b.gapPct) return b.gapPct - a.gapPct;
  if (a.score !== b.score) return b.score - a.score;
  return byCodeUnit(a.ticker, b.ticker) || byCodeUnit(a.market, b.market);
}

/** Every market's rows, each sorted once in ranking order. */
export type RankingIndex = Record<Market, RankingRow[]>;

export function rankingIndex(rows: readonly RankingRow[]): RankingIndex {
  const index: RankingIndex = { KR: [], US: [] };
  for (const row of rows) index[row.market].push(row);
  index.KR.sort(compareRankingRows);
  index.US.sort(compareRankingRows);
  return index;
}

export interface RankingQuery {
  markets: readonly Market[];
  bands: readonly BandKey[];
  /** How many rows to return. */
  limit: number;
  /** Rows to skip first: the answer is rows [offset, offset + limit) of the whole sorted list. */
  offset?: number;
}

export interface Rankings {
  rows: RankingRow[];
  /** Stocks that pass the market and band filter (before `limit`). */
  totalCount: number;
}

/**
 * Rows [offset, offset + limit) of the requested markets and bands in ranking order, and how
 * many passed the filter. Paging walks one order: the same snapshot gives every row exactly once.
 */
export function rankings(index: RankingIndex, query: RankingQuery): Rankings {
  const bands = new Set(query.bands);
  const offset = Math.max(0, query.offset ?? 0);
  // The first offset + limit rows of the merged order come from each market's first offset + limit.
  const limit = offset + Math.max(0, query.limit);
  let totalCount = 0;
  const tops: RankingRow[][] = [];
  for (const market of new Set(query.markets)) {
    const top: RankingRow[] = [];
    for (const row of index[market]) {
      if (!bands.has(row.band)) continue;
      totalCount++;
      // Rows are already in order, so the first `limit` that pass are this market's top.
      if (top.length < limit) top.push(row);
    }
    tops.push(top);
  }
  return { rows: mergeRanked(tops, limit).slice(offset), totalCount };
}

/** Merges lists already in ranking order, keeping the first `limit`. */
function mergeRanked(lists: RankingRow[][], limit: number): RankingRow[] {
  const [a = [], b = []] = lists;
  if (lists.length <= 1) return a.slice(0, limit);
  const out: RankingRow[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && compareRankingRows(x, y) <= 0)) {
      out.push(x as RankingRow);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}
