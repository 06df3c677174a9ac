// Listing versions (src/domain/listings.ts): which version holds on a day, what a write of a day
// adds, what a dated former name does, and EDGAR's formerNames as consecutive spans.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formerNameSpans, listedAs, versionOn, withFormerName, withListing, type ListingVersion } from '../../src/domain/listings.js';

const v = (validFrom: string, name: string, sector = 'Steel', exchange = 'KOSDAQ'): ListingVersion => ({ validFrom, name, sector, exchange });

describe('listing versions', () => {
  const two = [v('2024-01-10', 'A'), v('2024-03-04', 'B', 'Chemicals')];

  it('the version of a day is the latest from on or before it; before the first, the first', () => {
    assert.equal(versionOn(two, '2024-03-03')?.name, 'A');
    assert.equal(versionOn(two, '2024-03-04')?.name, 'B');
    assert.equal(versionOn(two, '2030-01-01')?.name, 'B');
    assert.equal(versionOn(two, '1990-01-01')?.name, 'A');
    assert.equal(versionOn([], '2024-01-01'), undefined);
  });

  it('a write equal to the version of its day adds nothing; a different one starts a version that day', () => {
    assert.deepEqual(withListing(two, '2024-02-01', { name: 'A', sector: 'Steel', exchange: 'KOSDAQ' }), two);
    // A move to KOSPI seen on 2024-02-20, before the rename: the past changes, the latest stays.
    assert.deepEqual(withListing(two, '2024-02-20', { name: 'A', sector: 'Steel', exchange: 'KOSPI' }), [two[0], v('2024-02-20', 'A', 'Steel', 'KOSPI'), two[1]]);
    // Seen again the day the rename starts: replaces that day's version.
    assert.deepEqual(withListing(two, '2024-03-04', { name: 'C', sector: 'Chemicals', exchange: 'KOSDAQ' }), [two[0], v('2024-03-04', 'C', 'Chemicals')]);
    // The same listing as the first, seen before it: the first moves back to that day.
    assert.deepEqual(withListing(two, '2023-06-01', { name: 'A', sector: 'Steel', exchange: 'KOSDAQ' }), [v('2023-06-01', 'A'), two[1]]);
    // A write of the rename's listing again the day after: nothing.
    assert.deepEqual(withListing(two, '2024-03-05', { name: 'B', sector: 'Chemicals', exchange: 'KOSDAQ' }), two);
  });

  it('a write without a day corrects the latest version; the first write of a company starts its first version', () => {
    assert.deepEqual(withListing(two, null, { name: 'B2', sector: 'Chemicals', exchange: 'KOSDAQ' }), [two[0], v('2024-03-04', 'B2', 'Chemicals')]);
    assert.deepEqual(withListing([], '2024-05-02', { name: 'N', sector: 'Banks', exchange: 'KOSPI' }), [v('2024-05-02', 'N', 'Banks', 'KOSPI')]);
    assert.deepEqual(withListing([], null, { name: 'N', sector: 'Banks', exchange: 'KOSPI' }), [v('0000-01-01', 'N', 'Banks', 'KOSPI')]);
  });

  it('Unclassified keeps the sector of the day; a sector found where none was known fills the versions that knew none', () => {
    assert.deepEqual(withListing(two, '2024-04-01', { name: 'B', sector: 'Unclassified', exchange: 'KOSDAQ' }), two);
    // Renamed by a source that knows no sector: the new version keeps Chemicals.
    assert.deepEqual(withListing(two, '2024-04-01', { name: 'D', sector: 'Unclassified', exchange: 'KOSDAQ' }), [...two, v('2024-04-01', 'D', 'Chemicals')]);
    const unknown = [v('2024-01-10', 'Y', 'Unclassified'), v('2024-02-01', 'Y2', 'Unclassified')];
    assert.deepEqual(withListing(unknown, '2024-05-02', { name: 'Y2', sector: 'Banks', exchange: 'KOSDAQ' }), [v('2024-01-10', 'Y', 'Banks'), v('2024-02-01', 'Y2', 'Banks')]);
  });

  it('a dated former name takes its span; the day it ends keeps what held there', () => {
    const today = [v('2015-01-02', 'Apple Inc.', 'Hardware', 'NASDAQ')];
    const once = withFormerName(today, 'APPLE COMPUTER INC', '1994-01-26', '2007-01-10');
    assert.deepEqual(once, [v('1994-01-26', 'APPLE COMPUTER INC', 'Hardware', 'NASDAQ'), v('2007-01-10', 'Apple Inc.', 'Hardware', 'NASDAQ')]);
    const both = withFormerName(once, 'APPLE INC', '2007-01-10', '2019-08-05');
    const expected = [v('1994-01-26', 'APPLE COMPUTER INC', 'Hardware', 'NASDAQ'), v('2007-01-10', 'APPLE INC', 'Hardware', 'NASDAQ'), v('2019-08-05', 'Apple Inc.', 'Hardware', 'NASDAQ')];
    assert.deepEqual(both, expected);
    // The other order, and again: the same versions.
    assert.deepEqual(withFormerName(withFormerName(today, 'APPLE INC', '2007-01-10', '2019-08-05'), 'APPLE COMPUTER INC', '1994-01-26', '2007-01-10'), expected);
    assert.deepEqual(withFormerName(withFormerName(both, 'APPLE COMPUTER INC', '1994-01-26', '2007-01-10'), 'APPLE INC', '2007-01-10', '2019-08-05'), expected);
    // An empty span, or a company without versions: nothing.
    assert.deepEqual(withFormerName(today, 'X', '1997-07-28', '1997-07-28'), today);
    assert.deepEqual(withFormerName([], 'X', '1990-01-01', '2000-01-01'), []);
  });

  it('EDGAR formerNames: by first day, each until the next one starts, the latest until its own end', () => {
    const spans = formerNameSpans([
      { name: 'APPLE INC', from: '2007-01-10T00:00:00.000Z', to: '2019-08-05T00:00:00.000Z' },
      { name: 'APPLE COMPUTER INC', from: '1994-01-26T00:00:00.000Z', to: '2007-01-04T00:00:00.000Z' },
      { name: 'APPLE COMPUTER INC/ FA', from: '1997-07-28T00:00:00.000Z', to: '1997-07-28T00:00:00.000Z' },
      { name: 'BAD', from: 'yesterday', to: '2000-01-01' },
    ]);
    assert.deepEqual(spans, [
      { name: 'APPLE COMPUTER INC', from: '1994-01-26', until: '2007-01-10' },
      { name: 'APPLE INC', from: '2007-01-10', until: '2019-08-05' },
    ]);
  });

  it("a security as listed on a day: the same object where the day's version is today's", () => {
    const today = { id: 1, name: 'B', sector: 'Chemicals', exchange: 'KOSDAQ', code: '900001' };
    assert.equal(listedAs(today, two, '2024-06-01'), today);
    assert.equal(listedAs(today, undefined, '2024-01-01'), today);
    assert.deepEqual(listedAs(today, two, '2024-02-01'), { ...today, name: 'A', sector: 'Steel' });
  });
});
