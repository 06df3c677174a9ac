// Each stock's TTM step function (src/domain/ttm.ts, `ttmTimeline` of all its filings), kept in
// the store beside the filings it is made of (`ttm_steps`, one value a stock): what the valuation
// band reads instead of every filing of the stock: reading ~60 filings of 30 figures and deriving
// their quarters would be most of a band's first call at full size (docs/performance.md, "What
// dominates each cost"). It is derived in the transaction of every write that brings filings of the
// stock, from all of its filings as stored, so it is always `ttmTimeline` of them. A change to how
// the timeline is derived (src/domain/ttm.ts) or to the layout below bumps TTM_STEPS_FORMAT, and
// the next start derives every stock's steps again from its filings (./derived.ts).
//
// Layout of n steps: netIncome, revenue, equity and shares as n float64 each, then the effective
// date's day number and the reference quarter's ordinal (fiscal year x 4 + quarter - 1) as n
// int32 each, then a byte per step whose bits 0-3 say which of the four figures is null; 41
// bytes a step, in the platform's byte order (as ./bar-packs.ts).

import type { Kysely } from 'kysely';
import { dateOfDayNumber, dayNumber } from '../domain/calendar.js';
import type { Market } from '../domain/model.js';
import { labelOfOrdinal, ordinalOf, ttmTimeline, type TtmStep } from '../domain/ttm.js';
import { groupById, upsert, type RowRunner } from './queries.js';
import { encodeReports } from './report-packs.js';
import { REPORT_FIGURES, toReport } from './report-rows.js';
import type { DB } from './schema.js';

/** The version of the steps' derivation and layout, kept beside the steps (./derived.ts). */
export const TTM_STEPS_FORMAT = 1;

const FIGURES = ['netIncome', 'revenue', 'equity', 'shares'] as const;
const BYTES_PER_STEP = 8 * FIGURES.length + 4 + 4 + 1;

export function encodeSteps(steps: readonly TtmStep[]): Uint8Array {
  const n = steps.length;
  const bytes = new Uint8Array(n * BYTES_PER_STEP);
  const floats = new Float64Array(bytes.buffer, 0, FIGURES.length * n);
  const ints = new Int32Array(bytes.buffer, 8 * FIGURES.length * n, 2 * n);
  const nulls = new Uint8Array(bytes.buffer, (8 * FIGURES.length + 8) * n, n);
  steps.forEach((step, k) => {
    let mask = 0;
    FIGURES.forEach((figure, f) => {
      const value = step[figure];
      if (value === null) mask |= 1 << f;
      else floats[f * n + k] = value;
    });
    nulls[k] = mask;
    ints[k] = dayNumber(step.effectiveFrom);
    ints[n + k] = quarterOrdinal(step.referenceQuarter);
  });
  return bytes;
}

export function decodeSteps(data: Uint8Array): TtmStep[] {
  if (data.byteLength % BYTES_PER_STEP !== 0) throw new Error(`TTM steps of ${data.byteLength} bytes are not whole steps of ${BYTES_PER_STEP}`);
  const n = data.byteLength / BYTES_PER_STEP;
  // Aligned for the views: a value read from the engine may start at any byte of its buffer.
  const own = new Uint8Array(data.byteLength);
  own.set(data);
  const floats = new Float64Array(own.buffer, 0, FIGURES.length * n);
  const ints = new Int32Array(own.buffer, 8 * FIGURES.length * n, 2 * n);
  const nulls = new Uint8Array(own.buffer, (8 * FIGURES.length + 8) * n, n);
  const figure = (f: number, k: number): number | null => (((nulls[k] as number) >> f) & 1 ? null : (floats[f * n + k] as number));
  const steps: TtmStep[] = [];
  for (let k = 0; k < n; k++) {
    const ordinal = ints[n + k] as number;
    steps.push({
      effectiveFrom: dateOfDayNumber(ints[k] as number),
      referenceQuarter: labelOfOrdinal(ordinal),
      netIncome: figure(0, k),
      revenue: figure(1, k),
      equity: figure(2, k),
      shares: figure(3, k),
    });
  }
  return steps;
}

/** `2025Q3` -> `ordinalOf(2025, 3)`. */
function quarterOrdinal(label: string): number {
  const match = /^(\d+)Q([1-4])$/.exec(label);
  if (match === null) throw new Error(`not a fiscal quarter: ${label}`);
  return ordinalOf(Number(match[1]), Number(match[2]));
}

/** Stocks whose filings one derivation reads at a time. */
const STOCKS_PER_READ = 200;

/** What is derived from each stock's filings and kept beside them. */
export interface FilingDerivatives {
  /** The TTM step function (`ttm_steps`, this module). */
  steps: boolean;
  /** The filings packed in one value (`report_packs`, ./report-packs.ts). */
  packs: boolean;
}

/**
 * Derives and stores, from all of the filings of `securityIds` as `db` sees them (a write's
 * transaction, or a rebuild's: ./derived.ts), what `which` names: their TTM step functions and
 * their report packs. A stock without filings has neither stored. Answers how many stocks had
 * filings.
 */
export async function writeFilingDerivatives(db: Kysely<DB>, securityIds: readonly number[], which: FilingDerivatives, rowRunner?: RowRunner): Promise<number> {
  const ids = [...new Set(securityIds)].sort((a, b) => a - b);
  let derived = 0;
  for (let i = 0; i < ids.length; i += STOCKS_PER_READ) {
    const chunk = ids.slice(i, i + STOCKS_PER_READ);
    // The order of the store's own `reports` read: ttmTimeline keeps the later of two filings
    // disclosed on one date for one period and basis (the key makes them one row anyway).
    const rows = await db
      .selectFrom('reports')
      .select(['reports.security_id', ...REPORT_FIGURES])
      .where('reports.security_id', 'in', chunk)
      .orderBy('reports.security_id')
      .orderBy('reports.fiscal_year')
      .orderBy('reports.fiscal_quarter')
      .orderBy('reports.disclosed_on')
      .execute();
    // Market and code are part of neither.
    const filings = groupById(
      rows.map((row) => Object.values(row) as unknown[]),
      (values) => toReport(values, '' as Market, '', 1),
    );
    const table = db as Parameters<typeof upsert>[1];
    if (which.steps) {
      const stored = [...filings].map(([id, reports]) => ({ security_id: id, data: encodeSteps(ttmTimeline(reports)) }));
      await upsert(rowRunner, table, 'ttm_steps', ['security_id'], stored);
    }
    if (which.packs) {
      const stored = [...filings].map(([id, reports]) => ({ security_id: id, data: encodeReports(reports) }));
      await upsert(rowRunner, table, 'report_packs', ['security_id'], stored);
    }
    derived += filings.size;
  }
  return derived;
}
