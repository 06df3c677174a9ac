// Bar packs (src/store/bar-packs.ts): a year's bars in one value, what the per-request history
// reads read. Packing keeps every double exactly, a merge replaces a day as the row upsert does,
// and a read of a range gives the bars in it, the last N of them when asked.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayNumber } from '../../src/domain/calendar.js';
import { decodePack, encodePack, mergePack, packRead, yearsOf, type PackedBar } from '../../src/store/bar-packs.js';

/** A bar on `date` whose seven values are `base` + 0..6 (open, high, low, close, volume, traded value, shares). */
const bar = (date: string, base: number): PackedBar => ({ day: dayNumber(date), values: [0, 1, 2, 3, 4, 5, 6].map((k) => base + k) });
const packOf = (bars: PackedBar[]) => encodePack(bars.map((b) => b.day), [0, 1, 2, 3, 4, 5, 6].map((c) => bars.map((b) => b.values[c] as number)));
const unpacked = (pack: Uint8Array) => {
  const { days, values } = decodePack(pack);
  return Array.from(days, (day, i) => ({ day, values: values.map((v) => v[i]) }));
};

describe('bar packs', () => {
  it('keep every double exactly: cents, -0, large integers, NaN', () => {
    const odd = [10.37, 0.1 + 0.2, -0, 2 ** 53 - 1, Number.NaN, 1e-300, 6_419_753_028_000];
    const bars: PackedBar[] = [{ day: dayNumber('2024-01-02'), values: odd }, bar('2024-01-03', 51_000)];
    const pack = packOf(bars);
    assert.equal(pack.byteLength, 2 * 60, '60 bytes a bar');
    assert.deepEqual(unpacked(pack), bars);
    // A value read from an engine may start at an odd byte of a larger buffer.
    const shifted = new Uint8Array(pack.byteLength + 3);
    shifted.set(pack, 3);
    assert.deepEqual(unpacked(shifted.subarray(3)), bars);
    assert.throws(() => decodePack(new Uint8Array(59)), /not whole bars/);
  });

  it('merge: a written bar replaces its day, new days go in order, the rest stay', () => {
    const stored = packOf([bar('2024-01-02', 100), bar('2024-01-04', 200), bar('2024-01-08', 300)]);
    const merged = mergePack(stored, [bar('2024-01-01', 10), bar('2024-01-04', 999), bar('2024-01-05', 20), bar('2024-01-09', 30)]);
    assert.deepEqual(unpacked(merged), [bar('2024-01-01', 10), bar('2024-01-02', 100), bar('2024-01-04', 999), bar('2024-01-05', 20), bar('2024-01-08', 300), bar('2024-01-09', 30)]);
    assert.deepEqual(unpacked(mergePack(undefined, [bar('2024-03-01', 1)])), [bar('2024-03-01', 1)], 'a first pack');
    assert.deepEqual(unpacked(mergePack(stored, [])), unpacked(stored), 'nothing written, nothing changed');
  });

  it('read a range across years, the last N of it, and market caps as close x shares', () => {
    // Three years, three bars each; values are distinct per bar.
    const years = [2019, 2020, 2021].map((y, k) => [`${y}-01-02`, `${y}-06-30`, `${y}-12-30`].map((d, i) => bar(d, 1_000 * (3 * k + i) + 0.25)));
    const packs = years.map(packOf);
    const all = years.flat();
    const read = (range: { from?: string; to: string; last?: number }) => {
      const r = packRead('bars', range);
      assert.equal(r.newestFirst, range.last !== undefined);
      const { days, values } = r.columnsOf(r.newestFirst ? [...packs].reverse() : packs);
      return Array.from(days, (day, i) => ({ day, values: values.map((v) => v[i]) }));
    };
    assert.deepEqual(read({ to: '2021-12-31' }), all);
    assert.deepEqual(read({ from: '2019-06-30', to: '2020-06-30' }), all.slice(1, 5), 'both ends inclusive');
    assert.deepEqual(read({ from: '2019-07-01', to: '2020-06-29' }), all.slice(2, 4));
    assert.deepEqual(read({ to: '2021-12-31', last: 4 }), all.slice(5), 'the last 4: one from 2020, three from 2021');
    assert.deepEqual(read({ to: '2021-06-30', last: 4 }), all.slice(4, 8));
    assert.deepEqual(read({ from: '2020-12-30', to: '2021-12-31', last: 40 }), all.slice(5), 'fewer than N in range: all of them');
    assert.deepEqual(read({ to: '2021-12-31', last: 0 }), []);
    assert.deepEqual(read({ from: '2022-01-01', to: '2022-12-31' }), []);
    // Market caps: the day and close x shares (values 3 and 6), the product JavaScript makes.
    const caps = packRead('caps', { from: '2020-01-01', to: '2020-12-31' });
    assert.deepEqual(caps.years, { first: 2020, last: 2020 });
    const { days, values } = caps.columnsOf(packs);
    assert.deepEqual([...days], years[1]?.map((b) => b.day));
    assert.deepEqual([...(values[0] as Float64Array)], years[1]?.map((b) => (b.values[3] as number) * (b.values[6] as number)));
    assert.equal(values.length, 1);
  });

  it('name the years a range needs', () => {
    assert.deepEqual(yearsOf('', '2026-11-20'), { first: 0, last: 2026 });
    assert.deepEqual(yearsOf('2019-12-31', '2020-01-06'), { first: 2019, last: 2020 });
  });
});
