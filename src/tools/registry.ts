// The one registry of tools. Both doors and the OpenAPI document iterate this list;
// adding a tool means adding its file and one line here.

import { getPriceHistory } from './get-price-history.js';
import { getRankings } from './get-rankings.js';
import { getSectorExports } from './get-sector-exports.js';
import { getSectorPercentile } from './get-sector-percentile.js';
import { getStockScore } from './get-stock-score.js';
import { getStockSnapshot } from './get-stock-snapshot.js';
import { getTradeTotal } from './get-trade-total.js';
import { getValuationBand } from './get-valuation-band.js';
import { health } from './health.js';
import { screenStocks } from './screen-stocks.js';
import { searchStocks } from './search-stocks.js';
import type { ToolDefinition } from './tool.js';

export const TOOLS: readonly ToolDefinition[] = [
  // First: an assistant that knows a company by name calls it before any other.
  searchStocks,
  getStockScore,
  getRankings,
  getTradeTotal,
  getSectorExports,
  getStockSnapshot,
  getValuationBand,
  getSectorPercentile,
  getPriceHistory,
  screenStocks,
  health,
];
