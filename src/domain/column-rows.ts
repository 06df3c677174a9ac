// Rows of a long series held as the columns they are read in (the history cache's typed
// arrays, ./series.ts), not made into one object per row: data a tool answers with.
//
// Why: made into objects, a day-by-day price history of 2,600 bars is 2,600 objects whose fields
// the answer's writer then reads back one by one, most of the serving thread's time for the
// call; writing the same bytes from the columns takes a fraction of it. `jsonBytes`
// (src/wire/json-bytes.ts) writes a ColumnRows from its columns; anything else that serialises
// it (JSON.stringify, a test) goes through `toJSON`, which makes the rows, so both give the same
// JSON.

/** A column of the rows: day numbers written as `YYYY-MM-DD`, or numbers. */
export type RowColumn = { kind: 'date'; days: Int32Array } | { kind: 'number'; values: Float64Array };

export class ColumnRows {
  constructor(
    /** The rows' keys, in order (one per column). */
    readonly keys: readonly string[],
    readonly columns: readonly RowColumn[],
    /** The rows are the columns' entries [start, end). */
    readonly start: number,
    readonly end: number,
    /** `objects`: each row `{key: value, ...}`; `arrays`: each row `[value, ...]` in the keys' order. */
    readonly shape: 'objects' | 'arrays',
    /** `YYYY-MM-DD` of a day number. */
    readonly dateOf: (day: number) => string,
  ) {
    if (keys.length !== columns.length || keys.length === 0) throw new Error('ColumnRows: one key per column, at least one');
    if (!(start >= 0 && start <= end)) throw new Error(`ColumnRows: rows [${start}, ${end}) are not a range`);
    for (const column of columns) {
      if ((column.kind === 'date' ? column.days : column.values).length < end) throw new Error(`ColumnRows: a column has fewer than ${end} entries`);
    }
  }

  get length(): number {
    return this.end - this.start;
  }

  /** The value of column `c` in row `i` (an index into the columns). */
  valueAt(c: number, i: number): string | number {
    const column = this.columns[c] as RowColumn;
    return column.kind === 'date' ? this.dateOf(column.days[i] as number) : (column.values[i] as number);
  }

  /** The rows as JSON.stringify writes them. */
  toJSON(): (Record<string, string | number> | (string | number)[])[] {
    const rows: (Record<string, string | number> | (string | number)[])[] = [];
    for (let i = this.start; i < this.end; i++) {
      if (this.shape === 'arrays') rows.push(this.keys.map((_, c) => this.valueAt(c, i)));
      else rows.push(Object.fromEntries(this.keys.map((key, c) => [key, this.valueAt(c, i)])));
    }
    return rows;
  }
}
