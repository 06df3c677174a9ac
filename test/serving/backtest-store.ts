// A small constructed KR market for the backtest's tests (test/serving/backtest.test.ts,
// test/cli/backtest.test.ts), every close chosen so that each return is derived by hand:
//
// sessions: 2023-12-28, 2023-12-29, 2024-01-31, 2024-03-29, 2024-05-31, 2024-06-03, 2024-08-30,
//           2024-12-30, 2025-01-02
// 900001 A  10,000 on 2023-12-29 -> 12,000 on 2024-12-30                     +20 %
// 900002 B  50,000 on 2023-12-29; a 2-for-1 split on 2024-06-03 (shares 1,000,000 -> 2,000,000,
//           close 60,000 -> 30,500: 30,500 x 2 / 60,000 = 1.0167, within the 30 % band); 33,000
//           on 2024-12-30: 33,000 / (50,000 / 2) - 1                         +32 %
// 900003 C  20,000 on 2023-12-29; delisted: its last bar is 2024-08-30 at 15,000  -25 %
// 900004 D  40,000 on 2023-12-29 -> 38,000 on 2024-12-30                     -5 %
// 900005 E  listed 2024-01-31 at 100,000 (the highest close of all): no close on 2023-12-29, so
//           not in that day's universe (a later price must not make it a pick).
//
// The period starting 2024-01-01 rebalances on 2023-12-29 (the last session on or before it)
// and holds to 2024-12-30 (the last session on or before 2025-01-01). Its market universe is
// A, B, C and D: mean (20 + 32 - 25 - 5) / 4 = 5.5 %.

import type { DailyBar, Security } from '../../src/domain/model.js';
import type { MarketDataStore } from '../../src/store/market-data.js';

const SESSIONS = ['2023-12-28', '2023-12-29', '2024-01-31', '2024-03-29', '2024-05-31', '2024-06-03', '2024-08-30', '2024-12-30', '2025-01-02'] as const;

function security(code: string, name: string): Security {
  return { market: 'KR', code, name, exchange: 'KOSPI', sector: 'Electronics', currency: 'KRW', fiscalYearEndMonth: 12, source: 'test' };
}

/** Closes (and listed shares) per session, undefined where the stock has no bar. */
const CLOSES: Record<string, { name: string; closes: readonly (number | undefined)[]; shares?: readonly number[] }> = {
  '900001': { name: 'Alpha', closes: [10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 12_000, 12_100] },
  '900002': {
    name: 'Beta, "split"',
    closes: [50_000, 50_000, 52_000, 55_000, 60_000, 30_500, 31_000, 33_000, 33_500],
    shares: [1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 2_000_000, 2_000_000, 2_000_000, 2_000_000],
  },
  '900003': { name: 'Gamma delisted', closes: [20_000, 20_000, 19_000, 18_000, 17_000, 16_000, 15_000] },
  '900004': { name: 'Delta', closes: [40_000, 40_000, 40_000, 39_000, 39_000, 39_000, 39_000, 38_000, 38_000] },
  '900005': { name: 'Epsilon', closes: [undefined, undefined, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000] },
};

export async function writeBacktestMarket(store: MarketDataStore): Promise<void> {
  const bars: DailyBar[] = [];
  for (const [code, { closes, shares }] of Object.entries(CLOSES)) {
    SESSIONS.forEach((date, i) => {
      const close = closes[i];
      if (close === undefined) return;
      const count = shares?.[i] ?? 1_000_000;
      bars.push({ market: 'KR', code, date, open: close, high: close, low: close, close, volume: 1_000, tradedValue: close * 1_000, shares: count, marketCap: close * count, source: 'test' });
    });
  }
  await store.writeDataset({ securities: Object.entries(CLOSES).map(([code, { name }]) => security(code, name)), bars });
}
