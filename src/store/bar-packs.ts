// One stock's bars of a calendar year packed into one value (`bar_packs.data`): what the
// per-request history reads (`barSeries`, `marketCapSeries`) read instead of one row per bar.
// Handing a row's values to JavaScript costs ~200 ns each (better-sqlite3), about six times
// what SQLite spends finding them; a whole history is ~13 packs instead of ~3,200 rows of 8
// values (docs/performance.md, "What dominates each cost"). The bars table stays the record:
// every write of bars rewrites the packs of the years it touched, in the same transaction
// (`mergePack`), so a pack always holds exactly its year's rows.
//
// Layout of a pack of n bars: the seven columns of COLUMNS_OF.bars (open, high, low, close,
// volume, traded value, shares) as n float64 each, then the n day numbers (days since
// 1970-01-01) as int32, ascending; 60 bytes a bar, in the platform's byte order
// (little-endian on every machine Node runs this service on: x64, arm64). Float64 keeps every
// stored double exactly, so answers are what the rows give.
//
// BAR_PACK_FORMAT names this layout and what a pack holds: a change to either bumps it, and the
// next start rebuilds every stock's packs from the bars (./derived.ts).

import { dayNumber } from '../domain/calendar.js';
import type { SeriesColumns, SeriesKind } from './series-rows.js';

/** The version of the packs' layout and content, kept beside the packs (./derived.ts). */
export const BAR_PACK_FORMAT = 1;

/** Columns a pack holds (COLUMNS_OF.bars, in order). */
const PACKED_COLUMNS = 7;
const BYTES_PER_BAR = 8 * PACKED_COLUMNS + 4;
const CLOSE = 3;
const SHARES = 6;

/** One bar as a pack holds it: its day number and the seven values in COLUMNS_OF.bars order. */
export interface PackedBar {
  day: number;
  values: readonly number[];
}

/** A pack's bars as columns (views on one aligned copy of the pack). */
interface Unpacked {
  days: Int32Array;
  values: Float64Array[];
}

export function encodePack(days: ArrayLike<number>, values: readonly ArrayLike<number>[]): Uint8Array {
  const n = days.length;
  const bytes = new Uint8Array(n * BYTES_PER_BAR);
  const floats = new Float64Array(bytes.buffer, 0, n * PACKED_COLUMNS);
  for (let c = 0; c < PACKED_COLUMNS; c++) floats.set(values[c] as ArrayLike<number>, c * n);
  new Int32Array(bytes.buffer, 8 * PACKED_COLUMNS * n, n).set(days);
  return bytes;
}

export function decodePack(pack: Uint8Array): Unpacked {
  if (pack.byteLength % BYTES_PER_BAR !== 0) throw new Error(`a bar pack of ${pack.byteLength} bytes is not whole bars of ${BYTES_PER_BAR}`);
  const n = pack.byteLength / BYTES_PER_BAR;
  // A value read from the engine may start at any byte of a shared buffer: copy it to one of
  // its own, aligned for the float64 views.
  const own = new Uint8Array(pack.byteLength);
  own.set(pack);
  const values: Float64Array[] = [];
  for (let c = 0; c < PACKED_COLUMNS; c++) values.push(new Float64Array(own.buffer, 8 * c * n, n));
  return { days: new Int32Array(own.buffer, 8 * PACKED_COLUMNS * n, n), values };
}

/**
 * The pack of a year after writing `written` (ascending by day, one per day) over `existing`
 * (that year's pack in the store, if any): a written bar replaces the one of its day, as the
 * upsert of its row does.
 */
export function mergePack(existing: Uint8Array | undefined, written: readonly PackedBar[]): Uint8Array {
  const old = existing === undefined ? { days: new Int32Array(0), values: [] as Float64Array[] } : decodePack(existing);
  // First the merged days (a written day replaces the stored one), then each column.
  const from: number[] = []; // per merged bar: >= 0 the stored bar's index, < 0 -(written index) - 1
  for (let i = 0, j = 0; i < old.days.length || j < written.length; ) {
    const oldDay = i < old.days.length ? (old.days[i] as number) : Number.POSITIVE_INFINITY;
    const bar = written[j];
    if (bar === undefined || oldDay < bar.day) from.push(i++);
    else {
      if (oldDay === bar.day) i++;
      from.push(-1 - j++);
    }
  }
  const n = from.length;
  const pack = new Uint8Array(n * BYTES_PER_BAR);
  const floats = new Float64Array(pack.buffer, 0, n * PACKED_COLUMNS);
  const days = new Int32Array(pack.buffer, 8 * PACKED_COLUMNS * n, n);
  for (let k = 0; k < n; k++) {
    const at = from[k] as number;
    days[k] = at >= 0 ? (old.days[at] as number) : (written[-1 - at] as PackedBar).day;
  }
  for (let c = 0; c < PACKED_COLUMNS; c++) {
    const stored = old.values[c] as Float64Array;
    for (let k = 0; k < n; k++) {
      const at = from[k] as number;
      floats[c * n + k] = at >= 0 ? (stored[at] as number) : ((written[-1 - at] as PackedBar).values[c] as number);
    }
  }
  return pack;
}

/** Which calendar years' packs a range [from, to] (dates, `from` '' for none) needs. */
export function yearsOf(from: string, to: string): { first: number; last: number } {
  return { first: from === '' ? 0 : Number(from.slice(0, 4)), last: Number(to.slice(0, 4)) };
}

/** Bars of one pack in [from, to] (day numbers): its index range. */
function bounds(days: Int32Array, from: number, to: number): { lo: number; hi: number } {
  let lo = 0;
  while (lo < days.length && (days[lo] as number) < from) lo++;
  let hi = days.length;
  while (hi > lo && (days[hi - 1] as number) > to) hi--;
  return { lo, hi };
}

/**
 * A read of packs: the series columns of `kind` for the bars in [from, to] (day numbers), the
 * last `last` of them when given. It names the years whose packs it needs, and in which order
 * (`newestFirst` for the last N bars, so that it can stop once it has them).
 */
export class PackRead {
  private readonly parts: { unpacked: Unpacked; lo: number; hi: number }[] = [];
  private count = 0;

  constructor(
    private readonly kind: SeriesKind,
    private readonly from: number,
    private readonly to: number,
    private readonly last: number | null,
    /** The calendar years whose packs the read needs. */
    readonly years: { first: number; last: number },
  ) {}

  /** Whether the packs are to come newest year first (a read of the last N bars). */
  get newestFirst(): boolean {
    return this.last !== null;
  }

  /** The columns of the bars in range, from the packs of `years` in the order `newestFirst` says; stops taking packs once it has the last N. */
  columnsOf(packs: Iterable<Uint8Array>): SeriesColumns {
    for (const pack of packs) {
      this.add(pack);
      if (this.last !== null && this.count >= this.last) break;
    }
    return this.columns();
  }

  private add(pack: Uint8Array): void {
    const unpacked = decodePack(pack);
    const { lo, hi } = bounds(unpacked.days, this.from, this.to);
    if (hi > lo) {
      this.parts.push({ unpacked, lo, hi });
      this.count += hi - lo;
    }
  }

  private columns(): SeriesColumns {
    const parts = this.last === null ? this.parts : [...this.parts].reverse();
    let skip = this.last === null ? 0 : Math.max(0, this.count - this.last);
    const n = this.count - skip;
    const days = new Int32Array(n);
    const values = this.kind === 'bars' ? Array.from({ length: PACKED_COLUMNS }, () => new Float64Array(n)) : [new Float64Array(n)];
    let at = 0;
    for (const { unpacked, lo: first, hi } of parts) {
      const lo = first + Math.min(skip, hi - first);
      skip -= lo - first;
      if (hi === lo) continue;
      days.set(unpacked.days.subarray(lo, hi), at);
      if (this.kind === 'bars') {
        for (let c = 0; c < PACKED_COLUMNS; c++) (values[c] as Float64Array).set((unpacked.values[c] as Float64Array).subarray(lo, hi), at);
      } else {
        // The market cap as the engines multiply it: the same IEEE product of the two doubles.
        const caps = values[0] as Float64Array;
        const close = unpacked.values[CLOSE] as Float64Array;
        const shares = unpacked.values[SHARES] as Float64Array;
        for (let k = lo; k < hi; k++) caps[at + k - lo] = (close[k] as number) * (shares[k] as number);
      }
      at += hi - lo;
    }
    return { days, values };
  }
}

/** A read of `kind` for a range of dates: [`from` ('' or absent: the first bar), `to`], the last `last` of them when given. */
export function packRead(kind: SeriesKind, range: { from?: string | undefined; to: string; last?: number | null | undefined }): PackRead {
  const from = range.from ?? '';
  return new PackRead(kind, from === '' ? Number.NEGATIVE_INFINITY : dayNumber(from), dayNumber(range.to), range.last ?? null, yearsOf(from, range.to));
}
