// Every sector a source can place a stock in has a Korean name in src/domain/sectors.ts (the
// `sectorKo` of both doors and the dashboard), and a Korean name resolves back to its English
// one. A name outside the table (none a source produces) has a null sectorKo.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPORT_SECTOR_NAMES_KO, SECTOR_NAMES_KO, exportSectorKo, sectorFromEither, sectorKo } from '../../src/domain/sectors.js';
import { EXPORT_SECTORS } from '../../src/sources/shared/export-sectors.js';
import { MARKET_SECTORS, SECTOR_ECONOMICS } from '../../src/sources/demo/sectors.js';
import { KSIC_SECTORS, LAYOUT_SECTORS, UNCLASSIFIED } from '../../src/sources/opendart/sectors.js';
import { SIC_SECTORS, sectorOfSic } from '../../src/sources/sec/sectors.js';

describe('sector names in Korean', () => {
  it('names every sector the demo, OpenDART (KSIC, statement layouts), SEC (SIC codes) and the unplaced fallback produce', () => {
    // Every four-digit SIC code the SEC adapter could meet, through the function it places companies with.
    const sic = Array.from({ length: 10_000 }, (_, code) => sectorOfSic(String(code).padStart(4, '0')));
    assert.ok(sic.includes('Other Financials') && sic.includes('Hardware') && sic.includes('Wholesale'));
    assert.deepEqual([...new Set(sic)].sort(), [...new Set([...Object.values(SIC_SECTORS), UNCLASSIFIED])].sort());
    const produced = new Set<string>([
      ...MARKET_SECTORS.KR.map((s) => s.name),
      ...MARKET_SECTORS.US.map((s) => s.name),
      ...Object.keys(SECTOR_ECONOMICS),
      ...Object.values(KSIC_SECTORS),
      ...Object.values(LAYOUT_SECTORS),
      ...sic,
      UNCLASSIFIED,
    ]);
    const missing = [...produced].filter((s) => sectorKo(s) === null);
    assert.deepEqual(missing, []);
  });

  it('names the financial sectors with the terms Korean finance uses', () => {
    assert.deepEqual(
      ['Banks', 'Insurance', 'Securities', 'Other Financials', 'Asset Management', 'REITs'].map(sectorKo),
      ['은행', '보험', '증권', '기타금융', '자산운용', '리츠'],
    );
    assert.equal(sectorKo('Semiconductors'), '반도체');
  });

  it('gives each sector its own Korean name, so a Korean name resolves to one English name', () => {
    const ko = Object.values(SECTOR_NAMES_KO);
    assert.equal(new Set(ko).size, ko.length);
    for (const [en, name] of Object.entries(SECTOR_NAMES_KO)) assert.equal(sectorFromEither(name), en);
    assert.equal(sectorFromEither(' 반도체 '), 'Semiconductors');
    // English names and unknown names pass through unchanged (the caller judges them).
    assert.equal(sectorFromEither('Semiconductors'), 'Semiconductors');
    assert.equal(sectorFromEither('Electronic Computers'), 'Electronic Computers');
    assert.equal(sectorKo('Electronic Computers'), null);
    assert.deepEqual(['Materials', 'Industrials', 'Wholesale', 'Real Estate'].map(sectorKo), ['소재', '산업재', '도매', '부동산']);
  });

  it('names every export sector get_sector_exports ranks, each its own way', () => {
    assert.deepEqual(EXPORT_SECTORS.filter((s) => exportSectorKo(s) === null), []);
    assert.deepEqual(Object.keys(EXPORT_SECTOR_NAMES_KO).sort(), [...EXPORT_SECTORS].sort(), 'no name for a sector the list does not have');
    const ko = Object.values(EXPORT_SECTOR_NAMES_KO);
    assert.equal(new Set(ko).size, ko.length);
    assert.equal(exportSectorKo('Shipbuilding'), '선박');
  });
});
