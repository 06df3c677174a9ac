// search_stocks' matching and order on hand-chosen (invented) names, each case's expected
// order worked out beside it from the rules in src/domain/search.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialsOf, searchIndex, searchKey, searchStocks, type SearchEntry } from '../../src/domain/search.js';

const kr = (code: string, name: string, nameEn: string, marketCap: number): SearchEntry => ({
  market: 'KR', code, name, nameEn, exchange: 'KOSPI', sector: 'Electronic Components', currency: 'KRW', band: 'large', marketCap,
});
const us = (code: string, name: string, marketCap: number | null): SearchEntry => ({
  market: 'US', code, name, nameEn: name, exchange: 'NYSE', sector: 'Software', currency: 'USD', band: marketCap === null ? null : 'large', marketCap,
});

// Market caps in won; US at 1,400 won a dollar: ABC 420T, HAN 28T, HANS.B 7T, ZZZ no price.
const index = searchIndex(
  [
    kr('123450', '한성전자', 'Hanseong Electronics', 50e12),
    kr('234560', '한성', 'Hanseong', 1e12),
    kr('345670', '대한성전기', 'Daehanseong Electric', 90e12),
    kr('456780', '한새전자', 'Hansae Electronics', 10e12),
    us('HAN', 'Han Holdings', 20e9),
    us('HANS.B', 'Hanson Brothers Class B', 5e9),
    us('ABC', 'Hanseong America Inc.', 300e9),
    us('ZZZ', 'Zeta Han', null),
  ],
  1_400,
);
const codes = (q: string, options: { market?: 'KR' | 'US'; limit?: number } = {}): string[] =>
  searchStocks(index, { q, limit: options.limit ?? 50, market: options.market }).matches.map((m) => m.entry.code);

describe('search keys', () => {
  it('ignore case, width, spaces and punctuation (NFKC, lower case, letters and digits)', () => {
    assert.equal(searchKey('SAMSUNG ELECTRONICS CO,.LTD'), 'samsungelectronicscoltd');
    assert.equal(searchKey('ＨＡＮＳＥＯＮＧ　Ｅｌｅｃ'), 'hanseongelec');
    assert.equal(searchKey(' 한 성-전자 '), '한성전자');
    assert.equal(searchKey('BRK.B'), searchKey('brk-b'));
    assert.equal(searchKey('...'), '');
  });

  it('turn syllables into initial consonants; compatibility and half-width jamo are the same initials', () => {
    assert.equal(initialsOf(searchKey('삼성전자')), searchKey('ㅅㅅㅈㅈ'));
    assert.equal(searchKey('ﾡ'), searchKey('ㄱ')); // half-width kiyeok
    assert.equal(initialsOf('lg화학'), `lg${searchKey('ㅎㅎ')}`);
  });
});

describe('search_stocks order', () => {
  it('the exact ticker first, then names that start with the query, then names that contain it', () => {
    // HAN: exact ticker. Prefix (han...), by market cap: ABC 420T (Hanseong America), 123450 50T
    // (Hanseong Electronics), 456780 10T (Hansae), HANS.B 7T (Hanson; also its ticker), 234560 1T
    // (Hanseong). Contains: 345670 90T (Daehanseong), then ZZZ (Zeta Han, no price: last).
    assert.deepEqual(codes('han'), ['HAN', 'ABC', '123450', '456780', 'HANS.B', '234560', '345670', 'ZZZ']);
    const top = searchStocks(index, { q: 'HAN', limit: 2 });
    assert.deepEqual(top.matches.map((m) => [m.entry.code, m.kind, m.field]), [['HAN', 'exact', 'code'], ['ABC', 'prefix', 'name']]);
    assert.equal(top.totalCount, 8, 'totalCount counts every match, limit bounds the list');
  });

  it('a name equal to the query comes before longer names that start with it', () => {
    // 한성 is 234560's whole name (1T), so it leads 한성전자 (50T); 대한성전기 only contains it.
    assert.deepEqual(codes('한성'), ['234560', '123450', '345670']);
    assert.deepEqual(searchStocks(index, { q: '한성', limit: 1 }).matches.map((m) => [m.kind, m.field]), [['exact', 'name']]);
  });

  it('ignores width, case, spacing and punctuation in the query', () => {
    // hanseongelec: Hanseong Electronics starts with it, Daehanseong Electric contains it.
    assert.deepEqual(codes('ＨＡＮＳＥＯＮＧ ｅｌｅｃ'), ['123450', '345670']);
    assert.deepEqual(codes('hanseong-electronics'), ['123450']);
    assert.deepEqual(codes('한 성 전 자'), ['123450']);
    assert.deepEqual(codes('hans-b'), ['HANS.B']);
    assert.deepEqual(codes('Hans.B'), ['HANS.B']);
    assert.deepEqual(searchStocks(index, { q: 'hanseong electronics', limit: 5 }).matches.map((m) => [m.kind, m.field]), [['exact', 'nameEn']]);
  });

  it('matches Korean names by their initial consonants, alone or mixed with syllables', () => {
    // ㅎㅅㅈㅈ: 한성전자 (50T) and 한새전자 (10T), both whole names.
    assert.deepEqual(codes('ㅎㅅㅈㅈ'), ['123450', '456780']);
    assert.deepEqual(searchStocks(index, { q: 'ㅎㅅㅈㅈ', limit: 1 }).matches.map((m) => [m.kind, m.field]), [['exact', 'initials']]);
    // ㅎㅅ: 한성 whole; 한성전자, 한새전자 start with it; 대한성전기 (ㄷㅎㅅㅈㄱ) contains it.
    assert.deepEqual(codes('ㅎㅅ'), ['234560', '123450', '456780', '345670']);
    // 한ㅅ: 한 itself, then any ㅅ syllable: the same four; 대ㅅ matches nothing (대한...).
    assert.deepEqual(codes('한ㅅ'), ['234560', '123450', '456780', '345670']);
    assert.deepEqual(codes('대ㅅ'), []);
    assert.deepEqual(codes('ㄷ한ㅅ'), ['345670']);
    // A syllable must be the name's own: 한ㅅ matches 한새전자, 한성ㅈ does not.
    assert.deepEqual(codes('한성ㅈ'), ['123450', '345670']);
  });

  it('matches codes by prefix and contains', () => {
    // 4567: 456780 starts with it, 345670 contains it.
    assert.deepEqual(codes('4567'), ['456780', '345670']);
    assert.deepEqual(codes('123450'), ['123450']);
    assert.deepEqual(searchStocks(index, { q: '123450', limit: 1 }).matches.map((m) => m.kind), ['exact']);
  });

  it('filters by market, and answers nothing for a query without letters or digits', () => {
    assert.deepEqual(codes('han', { market: 'KR' }), ['123450', '456780', '234560', '345670']);
    assert.deepEqual(codes('han', { market: 'US' }), ['HAN', 'ABC', 'HANS.B', 'ZZZ']);
    assert.deepEqual(searchStocks(index, { q: ' - ', limit: 10 }), { matches: [], totalCount: 0 });
  });
});
