// Each stock's split events (src/domain/price-change.ts `splitEvents`: the later bar of each pair
// of consecutive bars whose listed shares jumped by a near-integer factor while the close moved
// inversely, and the factor), kept in the store beside the bars they are found in (`bar_splits`,
// a row an event: none for most stocks, a few in a decade for the others). With them a stock's
// price change over 1, 3 or 12 months needs three closes and no year of bars (the recompute's
// src/serving/price-changes.ts). Every write of bars derives, in its transaction, the events of
// the bars around what it wrote (the events are a function of consecutive pairs, so only pairs
// with a written bar in them can change), so the events are always `splitEvents` of the bars as
// stored. A change to how splits are found (src/domain/price-change.ts) bumps BAR_SPLITS_FORMAT,
// and the next start derives every stock's events again from its bars (./derived.ts).

import { sql, type Transaction } from 'kysely';
import { splitEvents, type CloseShares } from '../domain/price-change.js';
import { groupById, QueryRunner, upsert, type ArrayRows, type RowRunner } from './queries.js';
import type { DB } from './schema.js';

/** The version of the events' derivation, kept beside them (./derived.ts). */
export const BAR_SPLITS_FORMAT = 1;

/** Stocks whose bars one derivation reads at a time (3 parameters each). */
const STOCKS_PER_READ = 300;

/** What a write wrote of one stock's bars: the first and last date of them. */
export interface WrittenSpan {
  securityId: number;
  first: string;
  last: string;
}

/** Each stock's written span, from the bars a write brings (with their security ids). */
export function writtenSpans(bars: Iterable<{ securityId: number; date: string }>): WrittenSpan[] {
  const spans = new Map<number, WrittenSpan>();
  for (const { securityId, date } of bars) {
    const span = spans.get(securityId);
    if (span === undefined) spans.set(securityId, { securityId, first: date, last: date });
    else if (date < span.first) span.first = date;
    else if (date > span.last) span.last = date;
  }
  return [...spans.values()];
}

const toCloseShares = (row: unknown[]): CloseShares => ({ date: row[1] as string, close: Number(row[2]), shares: Number(row[3]) });

/**
 * Derives and stores, as `db` sees the bars (a write's transaction, after its bars), the split
 * events of every stock's bars from the bar before its written span to the bar after it: the
 * stored events dated after the first of those bars and up to the last are replaced by what
 * `splitEvents` finds in them. Every pair of consecutive bars with a written bar in it lies in
 * that run, and no other pair changed.
 */
export async function writeBarSplits(db: Transaction<DB>, spans: readonly WrittenSpan[], rawRows?: ArrayRows, rowRunner?: RowRunner): Promise<void> {
  const runner = new QueryRunner(db, rawRows);
  for (let i = 0; i < spans.length; i += STOCKS_PER_READ) {
    const chunk = spans.slice(i, i + STOCKS_PER_READ);
    // Each span widened to the bars on either side of it (a key probe each way), then its range
    // of the (security, date) key. The CTE's values are cast for PostgreSQL, which otherwise
    // types them as text.
    const wanted = sql.join(chunk.map((s) => sql`(cast(${s.securityId} as integer), ${s.first}, ${s.last})`));
    const rows = await runner.arrays({
      compile: () =>
        sql`with w(security_id, lo, hi) as (values ${wanted})
          select b.security_id, b.date, b.close, b.shares from w cross join bars b
          where b.security_id = w.security_id
            and b.date >= coalesce((select p.date from bars p where p.security_id = w.security_id and p.date < w.lo order by p.date desc limit 1), w.lo)
            and b.date <= coalesce((select n.date from bars n where n.security_id = w.security_id and n.date > w.hi order by n.date limit 1), w.hi)
          order by b.security_id, b.date`.compile(db),
    });
    const runs = groupById(rows, toCloseShares);
    const stored = await db
      .selectFrom('bar_splits')
      .select(['security_id', 'date'])
      .where('security_id', 'in', chunk.map((s) => s.securityId))
      .execute();
    for (const { security_id: id, date } of stored) {
      const run = runs.get(id);
      if (run !== undefined && date > (run[0] as CloseShares).date && date <= (run.at(-1) as CloseShares).date) {
        await db.deleteFrom('bar_splits').where('security_id', '=', id).where('date', '=', date).execute();
      }
    }
    const events = [...runs].flatMap(([id, run]) => splitEvents(run).map((e) => ({ security_id: id, date: e.date, factor: e.factor })));
    await upsert(rowRunner, db, 'bar_splits', ['security_id', 'date'], events);
  }
}

/**
 * Derives and stores the split events of the stocks with ids in (after, through] from all of
 * their bars (a rebuild's batch, ./derived.ts, which has removed their rows); answers how many.
 */
export async function deriveBarSplits(db: Transaction<DB>, after: number, through: number, rawRows?: ArrayRows, rowRunner?: RowRunner): Promise<number> {
  const rows = await new QueryRunner(db, rawRows).arrays(
    db
      .selectFrom('bars')
      .select(['security_id', 'date', 'close', 'shares'])
      .where('security_id', '>', after)
      .where('security_id', '<=', through)
      .orderBy('security_id')
      .orderBy('date'),
  );
  const events = [...groupById(rows, toCloseShares)].flatMap(([id, bars]) => splitEvents(bars).map((e) => ({ security_id: id, date: e.date, factor: e.factor })));
  await upsert(rowRunner, db, 'bar_splits', ['security_id', 'date'], events);
  return events.length;
}
