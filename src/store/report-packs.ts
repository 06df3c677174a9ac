// Each stock's filings packed into one value (`report_packs.data`, one row a stock), kept in the
// store beside the filings' rows: what the recompute reads (`recentReports`) instead of ~9 rows
// of 25 values per stock. Handing a row's values to JavaScript costs ~200 ns each
// (better-sqlite3): at full size a read of ~80,000 filings' rows would be half of the
// recompute's load (docs/performance.md, "What dominates each cost"). The reports table stays the record:
// every write that brings filings of a stock derives its pack again from all of its filings as
// stored, in the same transaction (./ttm-steps.ts `writeFilingDerivatives`), so a pack always
// holds exactly the stock's rows.
//
// Layout of a pack of n filings, ordered by fiscal year, fiscal quarter, disclosure date and
// basis (separate before consolidated):
// - 8 bytes: n, then the text's form (0: the strings joined by NUL; 1: a JSON array, used when a
//   string holds a NUL), as uint32;
// - the 20 figures (ITEM_KEYS of ./report-rows.ts) as n float64 each, 0 where null;
// - fiscal year, the figures' null bits (bit i: ITEM_KEYS[i] is null) and the source's index
//   among the pack's distinct sources, as n int32 each;
// - fiscal quarter and basis (1 consolidated) as n bytes each;
// - the text: the n period ends, the n disclosure dates, then the distinct sources, in UTF-8.
// In the platform's byte order (as ./bar-packs.ts). Every value is kept exactly: doubles as
// doubles, strings as written. A change to this layout bumps REPORT_PACK_FORMAT, and the next
// start packs every stock's filings again (./derived.ts).

import type { FinancialReport, FiscalQuarter, Market } from '../domain/model.js';
import { ITEM_KEYS, reportOf, type ItemKey } from './report-rows.js';

/** The version of the packs' layout, kept beside the packs (./derived.ts). */
export const REPORT_PACK_FORMAT = 2;

const ITEMS = ITEM_KEYS.length;
const HEADER_BYTES = 8;
const BYTES_PER_FILING = 8 * ITEMS + 4 * 3 + 2;
const SEPARATOR = '\u0000';
/** The platform's byte order, which the typed arrays that write a pack use. */
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The order a pack keeps: fiscal year, quarter, disclosure date, then separate before consolidated. */
function packOrder(a: FinancialReport, b: FinancialReport): number {
  return (
    a.fiscalYear - b.fiscalYear ||
    a.fiscalQuarter - b.fiscalQuarter ||
    (a.disclosedOn < b.disclosedOn ? -1 : a.disclosedOn > b.disclosedOn ? 1 : 0) ||
    Number(a.consolidated) - Number(b.consolidated)
  );
}

export function encodeReports(reports: readonly FinancialReport[]): Uint8Array {
  const sorted = [...reports].sort(packOrder);
  const n = sorted.length;
  const sources: string[] = [];
  const sourceIndex = new Map<string, number>();
  for (const r of sorted) {
    if (!sourceIndex.has(r.source)) {
      sourceIndex.set(r.source, sources.length);
      sources.push(r.source);
    }
  }
  const strings = [...sorted.map((r) => r.periodEnd), ...sorted.map((r) => r.disclosedOn), ...sources];
  const json = strings.some((s) => s.includes(SEPARATOR));
  const text = Buffer.from(json ? JSON.stringify(strings) : strings.join(SEPARATOR), 'utf8');
  const bytes = new Uint8Array(HEADER_BYTES + n * BYTES_PER_FILING + text.byteLength);
  const header = new Uint32Array(bytes.buffer, 0, 2);
  header[0] = n;
  header[1] = json ? 1 : 0;
  const floats = new Float64Array(bytes.buffer, HEADER_BYTES, ITEMS * n);
  const ints = new Int32Array(bytes.buffer, HEADER_BYTES + 8 * ITEMS * n, 3 * n);
  const small = new Uint8Array(bytes.buffer, HEADER_BYTES + (8 * ITEMS + 12) * n, 2 * n);
  sorted.forEach((r, k) => {
    let nulls = 0;
    for (let i = 0; i < ITEMS; i++) {
      const value = r[ITEM_KEYS[i] as ItemKey];
      if (value === null) nulls |= 1 << i;
      else floats[i * n + k] = value;
    }
    ints[k] = r.fiscalYear;
    ints[n + k] = nulls;
    ints[2 * n + k] = sourceIndex.get(r.source) as number;
    small[k] = r.fiscalQuarter;
    small[n + k] = r.consolidated ? 1 : 0;
  });
  bytes.set(text, HEADER_BYTES + n * BYTES_PER_FILING);
  return bytes;
}

/**
 * A pack's filings, read where the value lies (a value from the engine may start at any byte of
 * a shared buffer, so through a DataView, not typed-array views), made into reports on demand.
 */
class PackedReports {
  readonly n: number;
  private readonly view: DataView;
  private readonly ints: number;
  private readonly small: number;
  private readonly strings: string[];

  constructor(data: Uint8Array) {
    if (data.byteLength < HEADER_BYTES) throw new Error(`a report pack of ${data.byteLength} bytes cannot hold its header`);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const n = view.getUint32(0, LITTLE);
    const textStart = HEADER_BYTES + n * BYTES_PER_FILING;
    if (textStart > data.byteLength) throw new Error(`a report pack of ${data.byteLength} bytes cannot hold ${n} filings`);
    this.n = n;
    this.view = view;
    this.ints = HEADER_BYTES + 8 * ITEMS * n;
    this.small = this.ints + 12 * n;
    const text = Buffer.from(data.buffer, data.byteOffset + textStart, data.byteLength - textStart).toString('utf8');
    this.strings = view.getUint32(4, LITTLE) === 1 ? (JSON.parse(text) as string[]) : text.split(SEPARATOR);
  }

  fiscalYear(k: number): number {
    return this.view.getInt32(this.ints + 4 * k, LITTLE);
  }

  fiscalQuarter(k: number): number {
    return this.view.getUint8(this.small + k);
  }

  disclosedOn(k: number): string {
    return this.strings[this.n + k] as string;
  }

  report(k: number, market: Market, code: string): FinancialReport {
    const { n, view } = this;
    const nulls = view.getInt32(this.ints + 4 * (n + k), LITTLE);
    const floats = HEADER_BYTES + 8 * k;
    return reportOf(
      market,
      code,
      this.fiscalYear(k),
      this.fiscalQuarter(k) as FiscalQuarter,
      this.strings[k] as string,
      this.strings[n + k] as string,
      view.getUint8(this.small + n + k) === 1,
      this.strings[2 * n + view.getInt32(this.ints + 4 * (2 * n + k), LITTLE)] as string,
      (i) => ((nulls >> i) & 1 ? null : view.getFloat64(floats + 8 * n * i, LITTLE)),
    );
  }
}

/** Every filing of a pack, in the pack's order. */
export function decodeReports(data: Uint8Array, market: Market, code: string): FinancialReport[] {
  const packed = new PackedReports(data);
  return Array.from({ length: packed.n }, (_, k) => packed.report(k, market, code));
}

/**
 * The filings of a pack a snapshot as of `asOf` draws on (`recentReports` of ./market-reports.ts):
 * those disclosed on or before `asOf` whose fiscal quarter is at most `quarters - 1` quarters
 * before the latest such one, in the pack's order. Only those are made into reports.
 */
export function recentOfPack(data: Uint8Array, asOf: string, quarters: number, market: Market, code: string): FinancialReport[] {
  const packed = new PackedReports(data);
  let latest = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < packed.n; k++) {
    if (packed.disclosedOn(k) <= asOf) latest = Math.max(latest, packed.fiscalYear(k) * 4 + packed.fiscalQuarter(k));
  }
  const out: FinancialReport[] = [];
  for (let k = 0; k < packed.n; k++) {
    if (packed.fiscalYear(k) * 4 + packed.fiscalQuarter(k) > latest - quarters && packed.disclosedOn(k) <= asOf) out.push(packed.report(k, market, code));
  }
  return out;
}
