// The answer writer (src/wire/json-bytes.ts) against JSON.stringify: the same bytes for every
// value, edge cases by name, a long price series as the service builds it (numbers out of a
// Float64Array), and a seeded random walk over values of every kind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonBytes } from '../../src/wire/json-bytes.js';
import { ColumnRows, type RowColumn } from '../../src/domain/column-rows.js';
import { JsonText } from '../../src/wire/json-text.js';
import { dateOfDayNumber, dayNumber } from '../../src/domain/calendar.js';
import { dateOfDay } from '../../src/domain/series.js';

const expected = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');
const same = (v: unknown, what = JSON.stringify(v)?.slice(0, 120)): void => assert.deepEqual(jsonBytes(v), expected(v), what);

/** A small seeded generator (mulberry32), so a failure is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('jsonBytes', () => {
  it('writes numbers as JSON.stringify does: integers at every digit count and past 2^31 and 2^53, fractions, -0, non-finite', () => {
    const numbers = [0, -0, 1, -1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, -(2 ** 31), 99_999_999, 100_000_000,
      100_000_001, 1e9, 1_234_567_890_123, 2_000_000_000_000, 10 ** 15, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53 - 1), 1e16, 1e20, 1e21, 1.5e300,
      0.1, 0.5, 1.5, -3.25, 1e-7, 123.456, 71_000.5, 1 / 3, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, NaN, Infinity, -Infinity];
    for (const x of numbers) same(x, String(x));
    same(numbers);
    // Every power of ten and its neighbours, up to 2^53: each digit count of both integer loops.
    for (let p = 1; p < 9.1e15; p *= 10) for (const x of [p - 1, p, p + 1, -p]) same(x, String(x));
  });

  it('writes decimals as JSON.stringify does: cents, up to four places, leading zeros, and those with more places or digits', () => {
    const decimals = [260.33, 28.74, 127_301_725.11, 0.05, -0.05, 0.5, 0.0001, 0.001, 0.0105, -1234.5678, 99_999_999_999.99, 99_999_999_999.9999, 1e11 - 0.5,
      1e11 + 0.5, 0.1 + 0.2, 1.005, 123.456, 0.1234, 0.12345, 1e-5, 4.35, 1.1, 2.675, 8_999_999_999_999.99];
    for (const x of decimals) same(x, String(x));
    // Every value of two decimals on a grid, and their sums (which often are not two-decimal doubles).
    for (let cents = -20_000; cents <= 20_000; cents += 7) {
      const x = cents / 100;
      same(x, String(x));
      same(x + 0.01, String(x + 0.01));
      same(x * 1.1, String(x * 1.1));
    }
  });

  it('writes strings as JSON.stringify does: quotes, backslashes, controls, DEL, Hangul, emoji and lone surrogates', () => {
    for (const s of ['', 'a', '2026-11-24', '"', '\\', 'a"b\\c', '\n\r\t\b\f', '\u0000\u001f', '\u007f', '삼성전자', '𝄞 and 😀', '\ud800', 'x\udc00y', '</script>', 'é'])
      same(s);
    same({ '삼성': 1, 'a"b': 2, '\n': 3 });
  });

  it('leaves out what JSON.stringify leaves out, and writes null where it does', () => {
    const fn = () => 1;
    same({ a: undefined, b: fn, c: Symbol('s'), d: 1, [Symbol('k')]: 2 });
    same([undefined, fn, Symbol('s'), 1]);
    // Sparse arrays: holes are null.
    same([1, , 3]); // eslint-disable-line no-sparse-arrays
    same({ nested: { only: undefined } });
    same({ a: [], b: {}, c: [[]], d: [{}] });
  });

  it('keeps JSON.stringify key order (integer-like keys first) and objects without a prototype', () => {
    same({ b: 1, 2: 'two', a: 3, 1: 'one', '-1': 4, '01': 5 });
    const bare = Object.create(null) as Record<string, unknown>;
    bare['z'] = 1;
    bare['y'] = [bare['z']];
    same(bare);
    same({ proto: bare });
  });

  it('hands what is not plain data to JSON.stringify: toJSON (even undefined), class instances, Map, typed arrays, Buffer, Date', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const gone = { toJSON: () => undefined };
    same({ when: new Date(Date.UTC(2026, 10, 24)), p: new Point(1, 2), m: new Map([[1, 2]]), t: new Float64Array([1.5, 2]), b: Buffer.from('ab') });
    same({ a: 1, gone, z: 2 });
    same([gone, 1]);
    same({ custom: { toJSON: () => ({ swapped: true }) } });
    same(new Point(3, 4));
  });

  it('rows that share their keys, and rows that do not: another order, one more or less, a value left out, a nested row', () => {
    const rows: unknown[] = [
      { date: '2026-01-02', close: 1 },
      { date: '2026-01-03', close: 2 },
      { close: 3, date: '2026-01-04' },
      { date: '2026-01-05' },
      { date: '2026-01-06', close: 4, volume: 5 },
      { date: '2026-01-07', close: undefined },
      { date: '2026-01-08', close: { toJSON: () => undefined } },
      { date: '2026-01-09', close: [1, { x: 2 }] },
      {},
      { date: '2026-01-10', close: 6 },
      [1, 2],
      null,
      'text',
    ];
    same(rows);
    same([{}, {}, { a: 1 }]);
  });

  it('a long price history as the service builds it: 2,600 rows of numbers out of a Float64Array', () => {
    const next = random(17);
    const columns = new Float64Array(2600 * 6);
    let price = 71_000;
    for (let i = 0; i < 2600; i++) {
      price = Math.max(100, Math.round((price * (1 + (next() - 0.5) * 0.04)) / 10) * 10);
      columns.set([price, price + 500, price - 700, price + 100, Math.round(next() * 3e7), Math.round(next() * 2e12)], i * 6);
    }
    const bars = Array.from({ length: 2600 }, (_, i) => ({
      date: new Date(Date.UTC(2016, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      open: columns[i * 6] as number,
      high: columns[i * 6 + 1] as number,
      low: columns[i * 6 + 2] as number,
      close: columns[i * 6 + 3] as number,
      volume: columns[i * 6 + 4] as number,
      tradedValue: columns[i * 6 + 5] as number,
    }));
    const answer = { code: '005930', market: 'KR', name: '삼성전자', nameEn: 'Samsung Electronics', interval: 'day', from: null, count: bars.length, bars, source: 'demo' };
    same(answer, 'price history');
    // The scratch buffer grew for this one; a small answer after it has none of its bytes.
    same({ small: true });
    same({ columns: ['date', 'close'], rows: bars.map((b) => [b.date, b.close / 7]) }, 'compact rows with fractions');
  });

  it('rows held as columns (ColumnRows): written from the columns as JSON.stringify writes their rows, as objects or arrays, anywhere in an answer', () => {
    const days = Int32Array.from([19_000, 19_001, 19_004, 19_005]);
    const close = Float64Array.from([71_000, 0.1 + 0.2, -0, Number.NaN]);
    const volume = Float64Array.from([2 ** 53, 12.5, 1e21, Number.POSITIVE_INFINITY]);
    const dateOf = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
    const columns: RowColumn[] = [
      { kind: 'date', days },
      { kind: 'number', values: close },
      { kind: 'number', values: volume },
    ];
    const rows = (shape: 'objects' | 'arrays', start = 0, end = 4) => new ColumnRows(['date', 'close', 'volume'], columns, start, end, shape, dateOf);
    // By hand: 19,000 days after 1970-01-01 is 2022-01-08; NaN and Infinity are null, -0 is 0.
    assert.equal(
      jsonBytes(rows('objects', 0, 3)).toString('utf8'),
      '[{"date":"2022-01-08","close":71000,"volume":9007199254740992},{"date":"2022-01-09","close":0.30000000000000004,"volume":12.5},{"date":"2022-01-12","close":0,"volume":1e+21}]',
    );
    for (const shape of ['objects', 'arrays'] as const) {
      for (const [start, end] of [[0, 4], [1, 3], [2, 2], [4, 4]] as const) {
        const value = rows(shape, start, end);
        // toJSON makes the rows themselves: JSON.stringify of it is the reference.
        assert.deepEqual(jsonBytes(value), expected(value), `${shape} [${start}, ${end})`);
        assert.equal(value.length, end - start);
        same({ count: value.length, bars: value, inArray: [value, value] }, `${shape} [${start}, ${end}) in an answer`);
      }
    }
    assert.throws(() => rows('objects', 3, 2), /not a range/);
    assert.throws(() => rows('objects', 0, 5), /fewer than 5 entries/);
    assert.throws(() => new ColumnRows(['date'], columns, 0, 1, 'objects', dateOf), /one key per column/);
  });

  it('values that write their own text (JsonText): their bytes written as they write them, anywhere in an answer; JSON.stringify reads the same value back', () => {
    /** Writes fixed UTF-8 bytes, and says it may take a few more than it does. */
    class Fixed extends JsonText {
      readonly maxBytes: number;
      constructor(readonly bytes: Buffer) {
        super();
        this.maxBytes = bytes.length + 5;
      }
      writeInto(out: Uint8Array, at: number): number {
        out.set(this.bytes, at);
        return at + this.bytes.length;
      }
    }
    const text = new Fixed(Buffer.from('[{"code":"005930","name":"삼성전자","per":12.5},["AAPL",null,1e+21]]', 'utf8'));
    // By hand: the bytes inside the member, the array and the top level, unchanged.
    assert.equal(jsonBytes({ count: 2, rows: text }).toString('utf8'), '{"count":2,"rows":[{"code":"005930","name":"삼성전자","per":12.5},["AAPL",null,1e+21]]}');
    assert.equal(jsonBytes([text, 1]).toString('utf8'), '[[{"code":"005930","name":"삼성전자","per":12.5},["AAPL",null,1e+21]],1]');
    assert.deepEqual(jsonBytes(text), text.bytes);
    for (const value of [text, { rows: text }, [text, text], { a: { b: [1, text] } }]) same(value);
    // Past the writer's first 64 KiB: room is made for what the value says it may take.
    const long = new Fixed(Buffer.from(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i * 1.5)), 'utf8'));
    same({ pad: 'x'.repeat(60_000), long });
  });

  it('dates of ColumnRows written from their day numbers as dateOfDayNumber writes them: every day of 1899-2101 in order, backwards and shuffled, years 1 and 9999, and days outside them', () => {
    const first = dayNumber('1899-12-01');
    const last = dayNumber('2101-01-31');
    const ascending = Int32Array.from({ length: last - first + 1 }, (_, i) => first + i);
    const next = random(11);
    const shuffled = Int32Array.from(ascending).sort(() => next() - 0.5);
    const ends = Int32Array.from([dayNumber('0001-01-01'), dayNumber('0001-01-01') + 1, dayNumber('0001-12-31'), dayNumber('0004-02-29'), dayNumber('9999-12-31') - 1, dayNumber('9999-12-31'), dayNumber('1970-01-01'), -1]);
    // Outside the years isoDay writes: handed to the rows' own dateOf.
    const outside = Int32Array.from([dayNumber('0001-01-01') - 1, dayNumber('9999-12-31') + 1, -2_000_000_000, 2_000_000_000]);
    for (const [name, days] of [
      ['ascending', ascending],
      ['descending', Int32Array.from(ascending).reverse()],
      ['shuffled', shuffled],
      ['years 1 and 9999', ends],
      ['outside', outside],
    ] as const) {
      const rows = new ColumnRows(['date'], [{ kind: 'date', days }], 0, days.length, 'arrays', dateOfDay);
      const written = JSON.parse(jsonBytes(rows).toString('utf8')) as string[][];
      assert.deepEqual(jsonBytes(rows), expected(rows), name);
      if (name !== 'outside') assert.deepEqual(written.map(([d]) => d), [...days].map(dateOfDayNumber), name);
    }
    // By hand: the leap days of 2000 (a leap year) and 2100 (not one).
    const leap = new ColumnRows(['d'], [{ kind: 'date', days: Int32Array.from([dayNumber('2000-02-28') + 1, dayNumber('2100-02-28') + 1]) }], 0, 2, 'objects', dateOfDay);
    assert.equal(jsonBytes(leap).toString('utf8'), '[{"d":"2000-02-29"},{"d":"2100-03-01"}]');
  });

  it('deep nesting past its own depth limit, and a cycle or a bigint fail as in JSON.stringify', () => {
    let deep: unknown = { leaf: [1, 'a'] };
    for (let i = 0; i < 200; i++) deep = i % 2 === 0 ? [deep] : { d: deep };
    same(deep, 'deep');
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = { again: [cycle] };
    assert.throws(() => JSON.stringify(cycle), TypeError);
    assert.throws(() => jsonBytes(cycle), TypeError);
    assert.throws(() => jsonBytes({ n: 1n }), TypeError);
    assert.throws(() => jsonBytes(undefined), TypeError);
    // A failed write leaves the writer usable.
    same({ after: 'failure' });
  });

  it('agrees with JSON.stringify on 20,000 random values of every kind', () => {
    const next = random(20261124);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
    const strings = ['', 'a', 'date', 'close', '삼성', '"q"', 'back\\slash', '\n', '\u0001', '😀', '\udfff', 'KRW', '005930'];
    const value = (depth: number): unknown => {
      const kind = Math.floor(next() * (depth > 4 ? 6 : 9));
      switch (kind) {
        case 0:
          return Math.round((next() - 0.3) * 10 ** Math.floor(next() * 17));
        case 1:
          return (next() - 0.5) * 10 ** Math.floor(next() * 30 - 10);
        case 2:
          return pick(strings);
        case 3:
          return pick([true, false, null, undefined, NaN, -0, Infinity]);
        case 4:
          return next() < 0.3
            ? pick([2 ** 31, 2 ** 53 - 1, 1e21, 99_999_999, 100_000_000])
            : // Decimals of one to six places at every magnitude up to 1e13.
              Math.round((next() - 0.3) * 10 ** Math.floor(next() * 19)) / 10 ** (1 + Math.floor(next() * 6));
        case 5:
          return pick(strings) + String(Math.floor(next() * 100));
        case 6:
          return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
        case 7: {
          // Rows that mostly share keys, as series do.
          const keys = ['date', 'close', 'volume'];
          return Array.from({ length: Math.floor(next() * 6) }, () => Object.fromEntries(keys.filter(() => next() > 0.1).map((k) => [k, value(depth + 2)])));
        }
        default:
          return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [pick(strings), value(depth + 1)]));
      }
    };
    for (let i = 0; i < 20_000; i++) {
      const v = { v: value(0) };
      same(v);
    }
  });
});
