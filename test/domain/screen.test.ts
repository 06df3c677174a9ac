import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import type { Market } from '../../src/domain/model.js';
import type { BandKey, Grade } from '../../src/domain/results.js';
import { GRADE_RANK, screen as screenOf, ScreenIndex, screenValue, screenValues, SCREEN_FIELD_DEFINITIONS, SCREEN_FIELDS, SCREEN_NUMBER_FIELDS, type ScreenNumberField, type ScreenQuery, type ScreenStock } from '../../src/domain/screen.js';

function stock(market: Market, code: string, sector: string, band: BandKey | null, grade: Grade | null, values: Partial<Record<ScreenNumberField, number | null>>, exchange = market === 'KR' ? 'KOSPI' : 'NYSE'): ScreenStock {
  return {
    code,
    market,
    name: code,
    nameEn: null,
    sector,
    exchange,
    band,
    currency: market === 'KR' ? 'KRW' : 'USD',
    grade,
    values: screenValues((f) => values[f] ?? null),
  };
}

// Six stocks: roe and per as a caller would bound them (roe in percent, per a multiple).
const A = stock('KR', '000010', 'Semiconductors', 'mega', 'A+', { roe: 18, per: 8, gapPct: 5 });
const B = stock('KR', '000020', 'Semiconductors', 'large', 'B', { roe: 12, per: 12, gapPct: 5 }, 'KOSDAQ');
const C = stock('KR', '000030', 'Software', 'mid', 'C', { roe: null, per: 30, gapPct: 1 }, 'KOSDAQ');
const D = stock('US', 'AAA', 'Semiconductors', 'mega', 'A', { roe: 25, per: 9, gapPct: 7 }, 'NASDAQ');
const E = stock('US', 'BBB', 'Software', null, null, { roe: 10, per: null, gapPct: null });
const F = stock('KR', 'AAA', 'Semiconductors', 'small', 'D', { roe: 18, per: 8, gapPct: 5 }); // same code text as D in another market
const ALL = [A, B, C, D, E, F];
/** The screen over stocks (each call a fresh index, so the orders are made as a first call makes them). */
const screen = (stocks: readonly ScreenStock[], query: ScreenQuery) => screenOf(new ScreenIndex(stocks), query);

const q = (over: Partial<ScreenQuery>): ScreenQuery => ({
  markets: ['KR', 'US'],
  sectors: [],
  bands: [],
  exchanges: [],
  bounds: [],
  sort: { field: 'gapPct', order: 'desc' },
  limit: 50,
  offset: 0,
  ...over,
});
const codes = (rows: readonly ScreenStock[]) => rows.map((r) => `${r.market}:${r.code}`);

describe('screen', () => {
  it('every numeric field and grade is described with a unit', () => {
    assert.deepEqual(
      SCREEN_FIELD_DEFINITIONS.map((d) => d.field).sort(),
      [...SCREEN_FIELDS].sort(),
    );
    assert.equal(SCREEN_NUMBER_FIELDS.length, 17 + 9 + 4);
    assert.equal(SCREEN_FIELD_DEFINITIONS.find((d) => d.field === 'roe')?.unit, '%');
    assert.equal(SCREEN_FIELD_DEFINITIONS.find((d) => d.field === 'per')?.unit, 'x');
  });

  it('bounds combine with AND, both ends inclusive; a null fails and is counted per field', () => {
    // roe >= 12: A 18, B 12 (inclusive), D 25, F 18 pass; C null (dropped for null), E 10 fails.
    // per <= 9: A 8, D 9 (inclusive), F 8 pass; B 12 fails; E null (dropped for null).
    const r = screen(ALL, q({ bounds: [{ field: 'roe', min: 12 }, { field: 'per', max: 9 }] }));
    // Passing both: A, D, F. gapPct desc: D 7, then A and F at 5 tied -> by code: '000010' < 'AAA'.
    assert.deepEqual(codes(r.rows), ['US:AAA', 'KR:000010', 'KR:AAA']);
    assert.equal(r.totalCount, 3);
    assert.deepEqual(r.droppedForNull, { roe: 1, per: 1 });
  });

  it('a grade bound is in grade ranks (D 0 .. A+ 6); no grade fails it and is counted', () => {
    // grade >= A: A (A+) and D (A) pass; B (B), C (C), F (D) fail; E has none.
    const r = screen(ALL, q({ bounds: [{ field: 'grade', min: GRADE_RANK.A }] }));
    assert.deepEqual(codes(r.rows), ['US:AAA', 'KR:000010']);
    assert.deepEqual(r.droppedForNull, { grade: 1 });
  });

  it('market, sector and band filters; empty lists mean every one', () => {
    assert.deepEqual(codes(screen(ALL, q({ markets: ['US'] })).rows), ['US:AAA', 'US:BBB']);
    assert.deepEqual(codes(screen(ALL, q({ sectors: ['Software'] })).rows), ['KR:000030', 'US:BBB']);
    // A stock without a price has no band: it passes only when no band is asked for.
    assert.deepEqual(codes(screen(ALL, q({ bands: ['mega', 'small'] })).rows), ['US:AAA', 'KR:000010', 'KR:AAA']);
    assert.equal(screen(ALL, q({})).totalCount, 6);
    // No market: no stock.
    assert.equal(screen(ALL, q({ markets: [] })).totalCount, 0);
  });

  it('exchange filter: only the named exchanges, with the other filters and bounds; nulls counted among them', () => {
    // Exchanges: A KOSPI, B KOSDAQ, C KOSDAQ, D NASDAQ, E NYSE, F KOSPI.
    // KOSDAQ: B (gapPct 5) and C (1), gapPct desc -> B, C.
    assert.deepEqual(codes(screen(ALL, q({ exchanges: ['KOSDAQ'] })).rows), ['KR:000020', 'KR:000030']);
    // KOSDAQ or NASDAQ with roe >= 12: B 12 and D 25 pass; C's roe is null (counted); gapPct desc -> D 7, B 5.
    const r = screen(ALL, q({ exchanges: ['KOSDAQ', 'NASDAQ'], bounds: [{ field: 'roe', min: 12 }] }));
    assert.deepEqual(codes(r.rows), ['US:AAA', 'KR:000020']);
    assert.equal(r.totalCount, 2);
    assert.deepEqual(r.droppedForNull, { roe: 1 });
    // With the market filter: NASDAQ in KR names no stock.
    assert.equal(screen(ALL, q({ markets: ['KR'], exchanges: ['NASDAQ'] })).totalCount, 0);
    // KOSPI in the Semiconductors sector: A and F (gapPct 5 both, by code 000010 < AAA).
    assert.deepEqual(codes(screen(ALL, q({ exchanges: ['KOSPI'], sectors: ['Semiconductors'] })).rows), ['KR:000010', 'KR:AAA']);
  });

  it('nulls sort last in either order; ties by code then market', () => {
    // gapPct asc: C 1, then A, F at 5 (code 000010 < AAA), then B at 5 too: codes 000010, 000020, AAA; D 7; E null last.
    assert.deepEqual(codes(screen(ALL, q({ sort: { field: 'gapPct', order: 'asc' } })).rows), ['KR:000030', 'KR:000010', 'KR:000020', 'KR:AAA', 'US:AAA', 'US:BBB']);
    assert.deepEqual(codes(screen(ALL, q({ sort: { field: 'gapPct', order: 'desc' } })).rows), ['US:AAA', 'KR:000010', 'KR:000020', 'KR:AAA', 'KR:000030', 'US:BBB']);
    // grade: A+ > A > B > C > D, null last.
    assert.deepEqual(codes(screen(ALL, q({ sort: { field: 'grade', order: 'desc' } })).rows), ['KR:000010', 'US:AAA', 'KR:000020', 'KR:000030', 'KR:AAA', 'US:BBB']);
  });

  it('limit and offset page one order; totalCount counts all pages', () => {
    const page1 = screen(ALL, q({ limit: 2, offset: 0 }));
    const page2 = screen(ALL, q({ limit: 2, offset: 2 }));
    const page4 = screen(ALL, q({ limit: 2, offset: 6 }));
    assert.deepEqual(codes(page1.rows), ['US:AAA', 'KR:000010']);
    assert.deepEqual(codes(page2.rows), ['KR:000020', 'KR:AAA']);
    assert.deepEqual(page4.rows, []);
    assert.equal(page4.totalCount, 6);
  });

  it('one index answers many screens: each order is made once and kept, and answers as a fresh one', () => {
    const index = new ScreenIndex(ALL);
    const queries = [q({ sort: { field: 'gapPct', order: 'asc' } }), q({ sort: { field: 'roe', order: 'desc' }, bounds: [{ field: 'per', max: 12 }] }), q({ sort: { field: 'gapPct', order: 'asc' }, markets: ['KR'] })];
    for (const query of queries) assert.deepEqual(screenOf(index, query), screen(ALL, query));
    assert.equal(index.order({ field: 'gapPct', order: 'asc' }), index.order({ field: 'gapPct', order: 'asc' }), 'the same order object: made once');
  });

  it('screenValue reads back null for NaN', () => {
    assert.equal(screenValue(C, 'roe'), null);
    assert.equal(screenValue(C, 'per'), 30);
  });

  it('property: any bounds, markets, sectors, bands and exchanges keep exactly the stocks that pass them all, and count nulls per field among the chosen', () => {
    const FIELDS = ['roe', 'per', 'pbr', 'operatingMargin', 'gapPct', 'score'] as const;
    // Ends on a half-step grid and values on a quarter-step grid: ties with either end happen often.
    const end = (min: number, max: number) => fc.option(fc.integer({ min: 2 * min, max: 2 * max }).map((x) => x / 2), { nil: undefined });
    const arbBound = fc.record({ field: fc.constantFrom(...FIELDS), min: end(-5, 20), max: end(20, 45) });
    const arbStock = fc.record({
      market: fc.constantFrom<Market>('KR', 'US'),
      code: fc.stringMatching(/^[0-9A-C]{1,3}$/),
      sector: fc.constantFrom('X', 'Y'),
      exchange: fc.constantFrom('E1', 'E2', 'E3'),
      band: fc.constantFrom<BandKey | null>('mega', 'mid', null),
      values: fc.array(fc.option(fc.integer({ min: -40, max: 200 }).map((x) => x / 4), { nil: null }), { minLength: FIELDS.length, maxLength: FIELDS.length }),
    });
    fc.assert(
      fc.property(
        // Up to 100 stocks: the bit sets span several 32-bit words.
        fc.array(arbStock, { maxLength: 100 }),
        fc.array(arbBound, { maxLength: 9 }),
        fc.constantFrom<readonly Market[]>(['KR', 'US'], ['KR'], ['US']),
        fc.constantFrom<readonly string[]>([], ['X']),
        fc.constantFrom<readonly string[]>([], ['E1'], ['E2', 'E3']),
        fc.constantFrom<readonly BandKey[]>([], ['mid'], ['mega', 'mid']),
        (specs, bounds, markets, sectors, exchanges, bands) => {
          const stocks = specs.map((s) => stock(s.market, s.code, s.sector, s.band, null, Object.fromEntries(FIELDS.map((f, i) => [f, s.values[i] ?? null])), s.exchange));
          const r = screen(stocks, q({ bounds, markets, sectors, exchanges, bands, sort: { field: 'roe', order: 'desc' }, limit: 1000 }));
          const inChoice = stocks.filter((s) => markets.includes(s.market) && (sectors.length === 0 || sectors.includes(s.sector)) && (exchanges.length === 0 || exchanges.includes(s.exchange)) && (bands.length === 0 || (s.band !== null && bands.includes(s.band))));
          const passes = (s: ScreenStock) => bounds.every((b) => { const v = screenValue(s, b.field); return v !== null && v >= (b.min ?? -Infinity) && v <= (b.max ?? Infinity); });
          assert.deepEqual(new Set(r.rows), new Set(inChoice.filter(passes)));
          assert.equal(r.totalCount, r.rows.length);
          assert.deepEqual(r.at.map((i) => stocks[i]), r.rows);
          for (const b of bounds) assert.equal(r.droppedForNull[b.field], inChoice.filter((s) => screenValue(s, b.field) === null).length, b.field);
        },
      ),
    );
  });

  it('property: paging walks every passing stock exactly once, in order, and every row passes its bounds', () => {
    const arbStock = fc.record({
      market: fc.constantFrom<Market>('KR', 'US'),
      code: fc.stringMatching(/^[0-9A-C]{1,3}$/),
      roe: fc.option(fc.integer({ min: -20, max: 40 }), { nil: null }),
      per: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(arbStock, { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), fc.constantFrom<'asc' | 'desc'>('asc', 'desc'), (specs, limit, order) => {
        const stocks = specs.map((s) => stock(s.market, s.code, 'X', 'mid', null, { roe: s.roe, per: s.per }));
        const query = q({ bounds: [{ field: 'roe', min: 0, max: 30 }], sort: { field: 'per', order }, limit });
        const whole = screen(stocks, { ...query, limit: 1000 });
        const walked: ScreenStock[] = [];
        for (let offset = 0; offset < whole.totalCount; offset += limit) walked.push(...screen(stocks, { ...query, offset }).rows);
        assert.deepEqual(walked, whole.rows);
        assert.equal(whole.totalCount, stocks.filter((s) => { const v = screenValue(s, 'roe'); return v !== null && v >= 0 && v <= 30; }).length);
        assert.equal(whole.droppedForNull.roe, specs.filter((s) => s.roe === null).length);
        for (let i = 1; i < whole.rows.length; i++) {
          const a = screenValue(whole.rows[i - 1] as ScreenStock, 'per');
          const b = screenValue(whole.rows[i] as ScreenStock, 'per');
          if (a === null) assert.equal(b, null);
          else if (b !== null) assert.ok(order === 'asc' ? a <= b : a >= b);
        }
      }),
    );
  });
});
