// How the store's parts run their statements on one Kysely instance: the per-request reads
// compiled once and run with new values, the bulk reads as arrays of column values, and the
// idempotent upserts of the writes; each with the engine's faster path where it has one
// (SQLite's, handed in by ./sqlite.ts).

import { sql, type Compilable, type CompiledQuery, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.js';

/** Stand-ins for a hot query's parameters, by position in the values passed at run time. */
export interface Placeholders {
  text(index: number): string;
  number(index: number): number;
}

/** The engine's own array-row read (SQLite): a statement's rows as arrays of column values. */
export type ArrayRows = (sql: string, parameters: readonly unknown[]) => unknown[][];

/**
 * How a part of the store runs its queries: hot ones compiled once (each part has its own
 * runner, so their names are the part's own), bulk reads as arrays.
 */
export class QueryRunner {
  /** Hot queries by name: the compiled statement and where each run's values go in its parameters (see `hot`). */
  private readonly hotQueries = new Map<string, { sql: CompiledQuery; slots: number[] }>();

  constructor(
    private readonly db: Kysely<DB>,
    /** The engine's own array-row read, where it has one (SQLite): see `arrays`. */
    readonly rawRows?: ArrayRows,
  ) {}

  /**
   * Runs a query and gives its rows as arrays of column values in select order: the bulk
   * reads (filings, bars, flows) are materialised once, as domain objects, not first as row
   * objects (SQLite's row objects cost three times its arrays on the recompute's reads).
   */
  async arrays(query: Compilable<unknown>): Promise<unknown[][]> {
    const compiled = query.compile();
    if (this.rawRows) return this.rawRows(compiled.sql, compiled.parameters);
    const result = await this.db.executeQuery(compiled);
    return result.rows.map((row) => Object.values(row as object) as unknown[]);
  }

  /** `hot` whose rows come as arrays of column values in select order (see `arrays`). */
  hotArrays(name: string, build: (p: Placeholders) => Compilable<unknown>): (values: readonly unknown[]) => Promise<unknown[][]> {
    const run = this.hot<object>(name, build);
    const compiled = this.hotQueries.get(name) as { sql: CompiledQuery; slots: number[] };
    const raw = this.rawRows;
    if (raw === undefined) return async (values) => (await run(values)).map((row) => Object.values(row) as unknown[]);
    return async (values) => {
      const parameters = [...compiled.sql.parameters];
      compiled.slots.forEach((slot, i) => (parameters[slot] = values[i]));
      return raw(compiled.sql.sql, parameters);
    };
  }

  /**
   * A query run on every request (key lookup, usage count), built and compiled by Kysely once
   * and then executed with new parameter values: building and compiling cost as much as
   * running the statement. The builder is called with placeholders (sentinel values); their
   * positions in the compiled parameters are where each call's values go.
   */
  hot<R>(name: string, build: (p: Placeholders) => Compilable<R>): (values: readonly unknown[]) => Promise<R[]> {
    let entry = this.hotQueries.get(name);
    if (entry === undefined) {
      const sentinels: unknown[] = [];
      const placeholders: Placeholders = {
        text: (i) => (sentinels[i] = `\u0000placeholder${i}`) as string,
        number: (i) => (sentinels[i] = -987_654_321 - i) as number,
      };
      const compiled = build(placeholders).compile();
      const slots = sentinels.map((v) => compiled.parameters.indexOf(v));
      if (slots.some((s) => s < 0)) throw new Error(`hot query ${name}: a placeholder did not reach the parameters`);
      entry = { sql: compiled, slots };
      this.hotQueries.set(name, entry);
    }
    const { sql: compiled, slots } = entry;
    return async (values) => {
      const parameters = [...compiled.parameters];
      slots.forEach((slot, i) => (parameters[slot] = values[i]));
      const result = await this.db.executeQuery<R>({ ...compiled, parameters });
      return result.rows;
    };
  }
}

// Rows per multi-row INSERT: keeps every statement under SQLite's and PostgreSQL's
// bound-parameter limits (32,766 and 65,535) for the widest table (reports, 25 columns).
const ROWS_PER_INSERT = 500;

export function chunks<T>(rows: readonly T[], size = ROWS_PER_INSERT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

type Table = keyof DB;

/** Runs one statement once per row of values, inside the current transaction (SQLite). */
export type RowRunner = (sql: string, rows: readonly unknown[][]) => void;

/**
 * Inserts rows in chunks; a row whose key exists replaces every non-key column (the
 * `excluded` row is SQLite's and PostgreSQL's name for the proposed one). This is what makes
 * every write idempotent.
 */
export async function upsert<T extends Table>(
  runRows: RowRunner | undefined,
  trx: Transaction<DB>,
  table: T,
  key: readonly string[],
  rows: readonly Insertable<DB[T]>[],
  /** Update expressions replacing `excluded.<column>` for some columns. */
  overrides: Record<string, unknown> = {},
): Promise<void> {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (first === undefined) return;
  const columns = Object.keys(first);
  const update = columns.filter((c) => !key.includes(c));
  // Kysely cannot type a table chosen at run time; the rows were typed against DB[T] above.
  const db = trx as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const set: Record<string, unknown> = Object.fromEntries(update.map((c) => [c, overrides[c] ?? sql.ref(`excluded.${c}`)]));
  if (runRows) {
    // One single-row statement, compiled by Kysely once and run per row with that row's values:
    // its parameters are the row's values in column order, then the update's own.
    const one = db
      .insertInto(table as string)
      .values(first)
      .onConflict((oc) => oc.columns(key as string[]).doUpdateSet(set))
      .compile();
    const tail = one.parameters.slice(columns.length);
    if (one.parameters.length >= columns.length && columns.every((c, i) => Object.is(one.parameters[i], first[c]))) {
      runRows(
        one.sql,
        rows.map((row) => {
          const values: unknown[] = columns.map((c) => (row as Record<string, unknown>)[c] ?? null);
          values.push(...tail);
          return values;
        }),
      );
      return;
    }
  }
  for (const part of chunks(rows)) {
    await db
      .insertInto(table as string)
      .values(part as Record<string, unknown>[])
      .onConflict((oc) => oc.columns(key as string[]).doUpdateSet(set))
      .execute();
  }
}

/**
 * Array rows ordered by security id (their first column) as lists per id; `map` makes each
 * row's object (null skips the row).
 */
export function groupById<T>(rows: readonly unknown[][], map: (row: unknown[], id: number) => T | null): Map<number, T[]> {
  return groupRunsById(rows.length, (i) => Number((rows[i] as unknown[])[0]), (i, id) => map(rows[i] as unknown[], id));
}

/**
 * Rows 0..count-1 ordered by security id as lists per id, whatever holds them (array rows, or
 * columns: ./market-reads.ts's reads on the reader threads): `idOf(i)` is row i's id, `make(i, id)`
 * its object (null skips the row).
 */
export function groupRunsById<T>(count: number, idOf: (i: number) => number, make: (i: number, id: number) => T | null): Map<number, T[]> {
  const out = new Map<number, T[]>();
  let id = Number.NaN;
  let list: T[] = [];
  for (let i = 0; i < count; i++) {
    const rowId = idOf(i);
    if (rowId !== id) {
      id = rowId;
      list = out.get(id) ?? [];
      out.set(id, list);
    }
    const item = make(i, id);
    if (item !== null) list.push(item);
  }
  return out;
}
