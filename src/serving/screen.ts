// The screener's read model: a served dataset's stocks as screen rows (`screenStockOf`, the
// values the per-stock tools serve), indexed once per dataset (ScreenIndex, src/domain/screen.ts)
// beside the rankings and search indexes the builder makes (./build.ts). Made by the dataset's
// first screen, not by the recompute: a refresh that nobody screens pays nothing for it.

import { englishNameOf, type Market } from '../domain/model.js';
import { PERCENTILE_METRICS } from '../domain/results.js';
import { gradeOf } from '../domain/score.js';
import { ScreenIndex, screenValues, type ScreenNumberField, type ScreenStock } from '../domain/screen.js';
import type { ServedDataset, StockView } from './dataset.js';

/** A served dataset's screen index and the exchanges its stocks are listed on. */
export interface ServedScreen {
  index: ScreenIndex;
  /** Per market, its stocks' exchanges by name. */
  exchanges: Readonly<Record<Market, readonly string[]>>;
}

const tables = new WeakMap<ServedDataset, Promise<ServedScreen>>();
const PERCENTILE_KEYS = new Set<string>(PERCENTILE_METRICS);

/** One stock's screen row: exactly the values the per-stock tools serve for it. */
export function screenStockOf(view: StockView): ScreenStock {
  const { security: s, price, v3 } = view;
  // get_stock_score's rule: score, grade, V3 score and gap only where the stock has both.
  const scored = v3.ok && view.scorePercentile !== null ? { v3: v3.result, score: view.scorePercentile } : null;
  const valueOf = (field: ScreenNumberField): number | null => {
    if (PERCENTILE_KEYS.has(field)) return view.metricValues[field as (typeof PERCENTILE_METRICS)[number]].value;
    switch (field) {
      case 'v3Score':
        return scored?.v3.score ?? null;
      case 'expectedReturn':
        return scored?.v3.expectedReturn ?? null;
      case 'gapPct':
        return scored?.v3.gapPct ?? null;
      case 'score':
        return scored?.score ?? null;
      case 'marketCap':
        return price?.marketCap ?? null;
      case 'currentPrice':
        return price?.close ?? null;
      case 'priceChange1m':
        return view.priceChanges.m1;
      case 'priceChange3m':
        return view.priceChanges.m3;
      case 'priceChange12m':
        return view.priceChanges.m12;
      case 'eps':
      case 'dividendPerShare':
      case 'dividendPerShareFy':
      case 'dividendYield':
        return view.snapshot.perShare[field].value;
      default:
        return null;
    }
  };
  return {
    code: s.code,
    market: s.market,
    name: s.name,
    nameEn: englishNameOf(s),
    sector: s.sector,
    exchange: s.exchange,
    band: view.band,
    currency: s.currency,
    grade: scored ? gradeOf(scored.score) : null,
    values: screenValues(valueOf),
  };
}

/** Stocks made into screen rows between two turns of the event loop while an index is built. */
const ROWS_PER_STEP = 500;

/**
 * The dataset's screen index, made by the first screen of a dataset (~0.1 s at full size, in
 * steps that let other requests run) and shared by every later one and by those that arrive
 * while it is being made.
 */
export function servedScreenOf(data: ServedDataset): Promise<ServedScreen> {
  let served = tables.get(data);
  if (served === undefined) {
    served = (async () => {
      const stocks: ScreenStock[] = [];
      for (const view of data.stocks()) {
        stocks.push(screenStockOf(view));
        if (stocks.length % ROWS_PER_STEP === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const index = new ScreenIndex(stocks);
      const exchangesOf = (market: Market) => [...new Set(stocks.filter((st) => st.market === market).map((st) => st.exchange))].sort();
      return { index, exchanges: { KR: exchangesOf('KR'), US: exchangesOf('US') } };
    })();
    tables.set(data, served);
    // A failed build (no stock served yet) is not kept: the next screen tries again.
    served.catch(() => tables.delete(data));
  }
  return served;
}

