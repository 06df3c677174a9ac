// Finding a stock by name. The API has no search endpoint (the tools are the contract), so
// names come from the rankings: per market all bands at the largest limit, and when a market
// has more stocks than one page holds, one request per band. Stocks outside the rankings are
// found by their code or ticker directly (docs/web.md).

import { api } from './api.js';
import { BAND_KEYS, type Market, type RankingRow, type Rankings } from './types.js';

const PAGE = 200;
const ALL_BANDS = BAND_KEYS.join(',');

/** A 6-digit KR code or a US ticker, as the API's code parameter accepts it. */
export const CODE_PATTERN = /^(\d{6}|[A-Za-z][A-Za-z0-9]{0,5}([.-][A-Za-z0-9]{1,3})?)$/;

let index: Promise<RankingRow[]> | null = null;

async function marketRows(market: Market): Promise<RankingRow[]> {
  const all = await api<Rankings>('/rankings', { market, bands: ALL_BANDS, limit: PAGE });
  if (all.totalCount <= all.rows.length) return all.rows;
  const perBand: RankingRow[] = [];
  for (const band of BAND_KEYS) perBand.push(...(await api<Rankings>('/rankings', { market, bands: band, limit: PAGE })).rows);
  return perBand;
}

export function nameIndex(): Promise<RankingRow[]> {
  if (index === null) {
    index = Promise.all([marketRows('KR'), marketRows('US')]).then(([kr, us]) => [...kr, ...us]);
    index.catch(() => {
      index = null;
    });
  }
  return index;
}

/** Matches best first: exact code, code prefix, name prefix, name containing the text. */
export function findStocks(rows: readonly RankingRow[], query: string, max = 20): RankingRow[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const rank = (row: RankingRow): number => {
    const ticker = row.ticker.toLowerCase();
    const name = row.name.toLowerCase();
    if (ticker === q) return 0;
    if (ticker.startsWith(q)) return 1;
    if (name.startsWith(q)) return 2;
    if (name.includes(q)) return 3;
    return -1;
  };
  return rows
    .map((row) => ({ row, r: rank(row) }))
    .filter((m) => m.r >= 0)
    .sort((a, b) => a.r - b.r || a.row.name.localeCompare(b.row.name))
    .slice(0, max)
    .map((m) => m.row);
}
