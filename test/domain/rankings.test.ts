import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { BAND_KEYS } from '../../src/domain/results.js';
import type { BandKey, RankingRow } from '../../src/domain/results.js';
import type { Market } from '../../src/domain/model.js';
import { compareRankingRows, rankingIndex, rankings } from '../../src/domain/rankings.js';

function row(market: Market, ticker: string, gapPct: number, score: number, band: BandKey): RankingRow {
  return {
    ticker,
    name: ticker,
    market,
    currency: market === 'KR' ? 'KRW' : 'USD',
    band,
    marketCap: 1,
    currentPrice: 1,
    targetPrice: 1,
    gapPct,
    score,
    yoy: 0,
    ttmNiEok: 0,
    supplyPct: 0,
    momentumPct: 0,
  };
}

const rows = [
  row('KR', '000020', 5, 10, 'large'), // A
  row('KR', '000030', 5, 12, 'mega'), // B: same gap as A, higher score
  row('KR', '000010', 5, 10, 'large'), // C: same gap and score as A, lower ticker
  row('KR', '000040', 3, 9, 'small'), // D
  row('KR', '000050', -2.25, 0, 'xlarge'), // E
  row('US', 'AAPL', 6, 14, 'mega'), // X
  row('US', '000010', 5, 10, 'large'), // Y: ties C on gap, score and ticker; KR first
];
const index = rankingIndex(rows);
const tickers = (r: RankingRow[]): string[] => r.map((x) => `${x.market}:${x.ticker}`);

void describe('rankings', () => {
  void it('sorts by gapPct descending, then score descending, then ticker ascending', () => {
    const r = rankings(index, { markets: ['KR'], bands: ['mega', 'xlarge', 'large'], limit: 10 });
    assert.deepEqual(tickers(r.rows), ['KR:000030', 'KR:000010', 'KR:000020', 'KR:000050']);
    assert.equal(r.totalCount, 4); // D is small: filtered out
  });

  void it('merges KR and US; an exact tie on gap, score and ticker puts KR first', () => {
    const r = rankings(index, { markets: ['KR', 'US'], bands: ['mega', 'xlarge', 'large'], limit: 10 });
    assert.deepEqual(tickers(r.rows), ['US:AAPL', 'KR:000030', 'KR:000010', 'US:000010', 'KR:000020', 'KR:000050']);
    assert.equal(r.totalCount, 6);
  });

  void it('returns the top limit while totalCount counts every row that passes the filter', () => {
    const r = rankings(index, { markets: ['KR', 'US'], bands: ['mega', 'xlarge', 'large'], limit: 3 });
    assert.deepEqual(tickers(r.rows), ['US:AAPL', 'KR:000030', 'KR:000010']);
    assert.equal(r.totalCount, 6);
  });

  void it('pages: offset skips rows of the merged order, and the pages together are the whole list once', () => {
    const all = ['US:AAPL', 'KR:000030', 'KR:000010', 'US:000010', 'KR:000020', 'KR:000050'];
    const page = (offset: number, limit: number) => rankings(index, { markets: ['KR', 'US'], bands: ['mega', 'xlarge', 'large'], limit, offset });
    assert.deepEqual(tickers(page(2, 3).rows), ['KR:000010', 'US:000010', 'KR:000020']);
    assert.equal(page(2, 3).totalCount, 6);
    for (const limit of [1, 2, 4, 6, 7]) {
      const walked: string[] = [];
      for (let offset = 0; offset < 6; offset += limit) walked.push(...tickers(page(offset, limit).rows));
      assert.deepEqual(walked, all, `limit ${limit}`);
    }
    // Past the end: no rows, the count unchanged.
    assert.deepEqual(page(6, 10), { rows: [], totalCount: 6 });
    assert.deepEqual(page(1_000_000, 10), { rows: [], totalCount: 6 });
  });

  void it('filters by band and market', () => {
    assert.deepEqual(rankings(index, { markets: ['KR'], bands: ['small'], limit: 10 }), { rows: [rows[3]], totalCount: 1 });
    const us = rankings(index, { markets: ['US'], bands: ['mega'], limit: 10 });
    assert.deepEqual(tickers(us.rows), ['US:AAPL']);
    assert.equal(rankings(index, { markets: ['US'], bands: ['small'], limit: 10 }).totalCount, 0);
  });

  void it('a repeated market is counted once', () => {
    assert.equal(rankings(index, { markets: ['KR', 'KR'], bands: ['large'], limit: 10 }).totalCount, 2);
  });

  void it('equals filter + full sort + slice for any rows (property)', () => {
    const arbRow = fc
      .record({
        market: fc.constantFrom<Market>('KR', 'US'),
        ticker: fc.constantFrom('000010', '000020', 'AAPL', 'MSFT', 'BRK.B'),
        gapPct: fc.constantFrom(-2.25, 0, 1.5, 3),
        score: fc.constantFrom(0, 1, 2),
        band: fc.constantFrom(...BAND_KEYS),
      })
      .map((r) => row(r.market, r.ticker, r.gapPct, r.score, r.band));
    fc.assert(
      fc.property(
        fc.array(arbRow, { maxLength: 60 }),
        fc.subarray([...BAND_KEYS], { minLength: 1 }),
        fc.subarray<Market>(['KR', 'US'], { minLength: 1 }),
        fc.integer({ min: 1, max: 20 }),
        (all, bands, markets, limit) => {
          const pass = all.filter((r) => bands.includes(r.band) && markets.includes(r.market)).sort(compareRankingRows);
          const got = rankings(rankingIndex(all), { markets, bands, limit });
          assert.equal(got.totalCount, pass.length);
          assert.deepEqual(got.rows.map((r) => [r.gapPct, r.score, r.ticker, r.market]), pass.slice(0, limit).map((r) => [r.gapPct, r.score, r.ticker, r.market]));
        },
      ),
    );
  });
});
