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

import { sql, type RawBuilder, type Transaction } from 'kysely';
import { splitEvents, type CloseShares } from '../domain/price-change.js';
import { groupById, QueryRunner, upsert, type ArrayRows, type RowRunner } from './queries.js';
import type { DB } from './schema.js';

/** The version of the events' derivation, kept beside them (./derived.ts). */
export const BAR_SPLITS_FORMAT = 1;

/** Stocks whose bars one derivation reads at a time (3 parameters each). */
const STOCKS_PER_READ = 300;

/** What a write wrote of one stock's bars: their dates, closes and shares, ascending by date. */
export interface WrittenBars {
  securityId: number;
  /** One a date: the last written for a date stands, as the rows' upsert leaves it. */
  bars: CloseShares[];
}

/** Each stock's written bars, from the bars a write brings (with their security ids), in the order given. */
export function writtenBars(bars: Iterable<CloseShares & { securityId: number }>): WrittenBars[] {
  const byStock = new Map<number, Map<string, CloseShares>>();
  for (const { securityId, date, close, shares } of bars) {
    let dates = byStock.get(securityId);
    if (dates === undefined) byStock.set(securityId, (dates = new Map()));
    dates.delete(date);
    dates.set(date, { date, close, shares });
  }
  return [...byStock].map(([securityId, dates]) => ({ securityId, bars: [...dates.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)) }));
}

const toCloseShares = (row: unknown[]): CloseShares => ({ date: row[1] as string, close: Number(row[2]), shares: Number(row[3]) });

/**
 * Derives and stores, as `db` sees the bars (a write's transaction, after its bars), the split
 * events of every stock's run of bars from the bar before its written bars to the bar after
 * them: the stored events dated after the first of those bars and up to the last are replaced by
 * what `splitEvents` finds in them. Every pair of consecutive bars with a written bar in it lies
 * in that run, and no other pair changed.
 */
export async function writeBarSplits(db: Transaction<DB>, written: readonly WrittenBars[], rawRows?: ArrayRows, rowRunner?: RowRunner): Promise<void> {
  const runner = new QueryRunner(db, rawRows);
  const rowsOf = (query: RawBuilder<unknown>) => runner.arrays({ compile: () => query.compile(db) });
  for (let i = 0; i < written.length; i += STOCKS_PER_READ) {
    const chunk = written.slice(i, i + STOCKS_PER_READ);
    // Per stock: the dates of the bars on either side of its written span (a key probe each
    // way) and how many bars the span holds. The CTE's values are cast for PostgreSQL, which
    // otherwise types them as text; every column is named, as PostgreSQL's rows are objects.
    const spans = sql.join(chunk.map(({ securityId, bars }) => sql`(cast(${securityId} as integer), ${bars[0]?.date ?? ''}, ${bars.at(-1)?.date ?? ''})`));
    const around = await rowsOf(sql`with w(security_id, lo, hi) as (values ${spans})
      select w.security_id,
        (select p.date from bars p where p.security_id = w.security_id and p.date < w.lo order by p.date desc limit 1) as prev,
        (select n.date from bars n where n.security_id = w.security_id and n.date > w.hi order by n.date limit 1) as next,
        (select count(*) from bars c where c.security_id = w.security_id and c.date >= w.lo and c.date <= w.hi) as stored
      from w`);
    // A span that holds only the written bars (a new day, a stock's first load, a correction):
    // its run is the written bars with the bar on either side. Otherwise (bars written among
    // others already stored) the run is read whole.
    const counts = new Map(around.map((row) => [Number(row[0]), { prev: row[1] as string | null, next: row[2] as string | null, stored: Number(row[3]) }]));
    const edges: { securityId: number; date: string }[] = [];
    const mixed: WrittenBars[] = [];
    for (const stock of chunk) {
      const at = counts.get(stock.securityId);
      if (at === undefined || at.stored !== stock.bars.length) {
        mixed.push(stock);
        continue;
      }
      if (at.prev !== null) edges.push({ securityId: stock.securityId, date: at.prev });
      if (at.next !== null) edges.push({ securityId: stock.securityId, date: at.next });
    }
    const edgeRows =
      edges.length === 0
        ? new Map<number, CloseShares[]>()
        : groupById(
            await rowsOf(sql`with v(security_id, date) as (values ${sql.join(edges.map((e) => sql`(cast(${e.securityId} as integer), ${e.date})`))})
              select b.security_id, b.date, b.close, b.shares from v cross join bars b
              where b.security_id = v.security_id and b.date = v.date
              order by b.security_id, b.date`),
            toCloseShares,
          );
    const runs = new Map<number, CloseShares[]>();
    for (const stock of chunk) {
      const first = stock.bars[0]?.date ?? '';
      const last = stock.bars.at(-1)?.date ?? '';
      const edge = edgeRows.get(stock.securityId) ?? [];
      runs.set(stock.securityId, [...edge.filter((b) => b.date < first), ...stock.bars, ...edge.filter((b) => b.date > last)]);
    }
    if (mixed.length > 0) {
      const wanted = sql.join(mixed.map(({ securityId, bars }) => sql`(cast(${securityId} as integer), ${bars[0]?.date ?? ''}, ${bars.at(-1)?.date ?? ''})`));
      const rows = await rowsOf(sql`with w(security_id, lo, hi) as (values ${wanted})
        select b.security_id, b.date, b.close, b.shares from w cross join bars b
        where b.security_id = w.security_id
          and b.date >= coalesce((select p.date from bars p where p.security_id = w.security_id and p.date < w.lo order by p.date desc limit 1), w.lo)
          and b.date <= coalesce((select n.date from bars n where n.security_id = w.security_id and n.date > w.hi order by n.date limit 1), w.hi)
        order by b.security_id, b.date`);
      for (const [id, run] of groupById(rows, toCloseShares)) runs.set(id, run);
    }
    const stored = await db
      .selectFrom('bar_splits')
      .select(['security_id', 'date'])
      .where('security_id', 'in', chunk.map((s) => s.securityId))
      .execute();
    for (const { security_id: id, date } of stored) {
      const run = runs.get(id);
      if (run !== undefined && run.length > 0 && date > (run[0] as CloseShares).date && date <= (run.at(-1) as CloseShares).date) {
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
