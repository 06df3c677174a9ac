// Finding a stock by name: the service's search_stocks tool (GET /stocks?q=), which matches
// Korean and English names, initial consonants (ㅅㅅㅈㅈ), codes and tickers over every stock
// served, best first (docs/web.md).

import { api } from './api.js';
import type { StockSearch, StockMatch } from './types.js';

/** A 6-digit KR code or a US ticker, as the API's code parameter accepts it. */
export const CODE_PATTERN = /^(\d{6}|[A-Za-z][A-Za-z0-9]{0,5}([.-][A-Za-z0-9]{1,3})?)$/;

/** The longest text search_stocks takes. */
const MAX_QUERY = 50;

/** Matches best first: the exact code or ticker, then names that start with the text, then those that contain it. */
export async function findStocks(query: string, max = 20): Promise<StockMatch[]> {
  const q = query.trim().slice(0, MAX_QUERY);
  // Punctuation alone matches nothing (and the API refuses it): no request.
  if (!/[\p{L}\p{N}]/u.test(q)) return [];
  return (await api<StockSearch>('/stocks', { q, limit: max })).matches;
}
