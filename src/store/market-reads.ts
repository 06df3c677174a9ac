// What the market-data parts (./market-bars.ts, ./market-flows.ts, ./market-reports.ts, ...) share:
// the store they run on, and the machinery of the bulk reads that the recompute makes of the
// whole universe (on SQLite's reader threads when there are any, ./series-readers.ts), with the
// window of each stock's last bars that the snapshot's reads start from.

import { sql, type Compilable, type Kysely } from 'kysely';
import { dayNumber } from '../domain/calendar.js';
import { dateOfDay } from '../domain/series.js';
import type { StoreDialect } from './dialect.js';
import type { UniverseSlice } from './market-types.js';
import { groupById, groupRunsById, type QueryRunner } from './queries.js';
import type { DB } from './schema.js';
import { columnOfRows, type ColumnType, type RowColumns } from './series-readers.js';

/** The store a market-data part runs on: one Kysely instance, its dialect, its statements. */
export interface MarketContext {
  readonly db: Kysely<DB>;
  readonly dialect: StoreDialect;
  readonly queries: QueryRunner;
}

/** The bulk reads' machinery, over one market context. */
export class BulkReads {
  constructor(private readonly ctx: MarketContext) {}

  /**
   * Each stock's window start: the date of its `count`-th last bar in [`from`, `asOf`], or
   * `from` when it has fewer (a correlated probe of the (security, date) key), as the CTE
   * `starts` (security_id, start) that `lastBars` and `flowsOfLastBars` read from, planned as the
   * dialect says (`windowStarts`: PostgreSQL materialises it, SQLite keeps it inline).
   */
  withWindowStarts(from: string, asOf: string, count: number, slice: UniverseSlice | undefined) {
    const { db, dialect } = this.ctx;
    const probe = db
      .selectFrom('bars as nth')
      .select('nth.date')
      .where('nth.security_id', '=', sql.ref<number>('securities.id'))
      .where('nth.date', '>=', from)
      .where('nth.date', '<=', asOf)
      .orderBy('nth.date', 'desc')
      .limit(1)
      .offset(count - 1);
    return db.with(
      (cte) => cte('starts')[dialect.windowStarts](),
      (q) => {
        const starts = q.selectFrom('securities').select(['securities.id as security_id', sql<string>`coalesce((${probe}), ${from})`.as('start')]);
        return slice ? starts.where('securities.id', '>=', slice.first).where('securities.id', '<=', slice.last) : starts;
      },
    );
  }

  /**
   * A bulk read's rows as columns of `types`, on a reader thread when there are any, else here
   * (where a `nullableFloat` null is NaN as well).
   */
  async rowColumns(query: Compilable<unknown>, types: readonly ColumnType[]): Promise<RowColumns> {
    const read = await this.onReader(query, types);
    if (read !== null) return read;
    const rows = await this.ctx.queries.arrays(query);
    return { count: rows.length, columns: types.map((type, c) => columnOfRows(rows, c, type, dayNumber)) };
  }

  /** A bulk read's rows as columns from a reader thread; null without one, or when it cannot answer. */
  private async onReader(query: Compilable<unknown>, types: readonly ColumnType[]): Promise<RowColumns | null> {
    const readers = this.ctx.dialect.seriesReaders;
    if (!readers) return null;
    const compiled = query.compile();
    try {
      return await readers.rows(compiled.sql, compiled.parameters, types);
    } catch {
      return null; // read here instead
    }
  }

  /**
   * A bulk read's rows grouped by security id (the first column), on a reader thread when there
   * are any (the columns come back as a few buffers, and the serving thread only makes the
   * objects), else here, as arrays. `make` reads row `i` of the columns either way: from the
   * thread's typed arrays, or from the arrays' values as `Number` and the date texts as they are.
   */
  async groupedRows<T>(query: Compilable<unknown>, types: readonly ColumnType[], make: (at: (column: number) => number, date: (column: number) => string) => T): Promise<Map<number, T[]>> {
    const read = await this.onReader(query, types);
    if (read !== null) {
      const { count, columns } = read;
      const ids = columns[0] as Int32Array;
      let i = 0;
      const at = (c: number) => (columns[c] as Float64Array | Int32Array)[i] as number;
      const date = (c: number) => dateOfDay((columns[c] as Int32Array)[i] as number);
      return groupRunsById(count, (row) => ids[row] as number, (row) => {
        i = row;
        return make(at, date);
      });
    }
    const rows = await this.ctx.queries.arrays(query);
    let row: unknown[] = [];
    const at = (c: number) => Number(row[c]);
    const date = (c: number) => row[c] as string;
    return groupById(rows, (r) => {
      row = r;
      return make(at, date);
    });
  }
}
