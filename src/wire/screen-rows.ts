// Screen rows as JSON text, kept per screen index (one per served dataset), so a screen's
// answer copies held bytes instead of formatting each number of each row again.
//
// Why: a screen's rows are the same in every answer of a served dataset; formatted once and
// copied, they cost a fraction of formatting them again, and written where the answer is
// written (JsonText), they are copied once.

import { LRUCache } from 'lru-cache';
import { screenRowOf, type ScreenField, type ScreenIndex, type ScreenRows, type ScreenStock } from '../domain/screen.js';
import { JsonText } from './json-text.js';

/** Field lists whose rows' text an index keeps (the most recently used). */
const ROW_SETS = 4;
/** Bytes of row text kept per field list; a Buffer's own overhead is counted as this many more. */
const ROW_SET_BYTES = 4 * 1024 * 1024;
const BUFFER_OVERHEAD = 96;

/** One field list's rows: each stock's row text, made the first time a screen shows it. */
interface RowSet {
  rows: (Buffer | undefined)[];
  bytes: number;
}

/**
 * Screen rows as JSON text, made once per index and stock for each field list and shape, and
 * kept: an answer's rows are then copies of held bytes, the text JSON.stringify gives the same
 * rows (`screenRowOf`). Bounded: the rows of the ROW_SETS field lists used last, up to
 * ROW_SET_BYTES each (a default screen's row is ~400 bytes, so the whole universe's 3.5 MB);
 * rows past that are made for the answer and not kept.
 */
export class RowTexts {
  /** The row sets of the field lists used last. */
  private readonly sets: LRUCache<string, RowSet>;

  constructor(
    private readonly index: ScreenIndex,
    private readonly limits: { sets: number; bytesPerSet: number } = { sets: ROW_SETS, bytesPerSet: ROW_SET_BYTES },
  ) {
    this.sets = new LRUCache<string, RowSet>({ max: limits.sets });
  }

  /** The rows of stocks `at` (indices into the index's stocks) with `fields`, as objects or arrays: a JSON array written when the answer is. */
  rows(at: readonly number[], fields: readonly ScreenField[], shape: 'objects' | 'arrays'): JsonText {
    const key = `${shape}:${fields.join(',')}`;
    let set = this.sets.get(key);
    if (set === undefined) {
      set = { rows: new Array<Buffer | undefined>(this.index.stocks.length), bytes: 0 };
      this.sets.set(key, set);
    }
    const rows: Buffer[] = [];
    for (const i of at) {
      let text = set.rows[i];
      if (text === undefined) {
        text = Buffer.from(JSON.stringify(screenRowOf(this.index.stocks[i] as ScreenStock, fields, shape)), 'utf8');
        if (set.bytes + text.length + BUFFER_OVERHEAD <= this.limits.bytesPerSet) {
          set.rows[i] = text;
          set.bytes += text.length + BUFFER_OVERHEAD;
        }
      }
      rows.push(text);
    }
    return new HeldRows(rows);
  }

  /** How many rows are kept, per field list (most recently used last). */
  kept(): Record<string, number> {
    return Object.fromEntries([...this.sets.rkeys()].map((key) => [key, (this.sets.peek(key) as RowSet).rows.filter((r) => r !== undefined).length]));
  }
}

/** Each screen index's row texts, for as long as the index is held (its served dataset). */
const textsOf = new WeakMap<ScreenIndex, RowTexts>();

/** A page of screen rows as JSON text, from the texts kept for its index. */
export function screenRowsText(page: ScreenRows): JsonText {
  let texts = textsOf.get(page.index);
  if (texts === undefined) textsOf.set(page.index, (texts = new RowTexts(page.index)));
  return texts.rows(page.at, page.fields, page.shape);
}

/** Rows whose texts are made already, written as one JSON array. */
class HeldRows extends JsonText {
  readonly maxBytes: number;

  constructor(private readonly rows: readonly Buffer[]) {
    super();
    let bytes = 2 + rows.length;
    for (const row of rows) bytes += row.length;
    this.maxBytes = bytes;
  }

  writeInto(out: Uint8Array, at: number): number {
    const rows = this.rows;
    let n = at;
    out[n++] = 91;
    for (let r = 0; r < rows.length; r++) {
      if (r > 0) out[n++] = 44;
      const row = rows[r] as Buffer;
      out.set(row, n);
      n += row.length;
    }
    out[n++] = 93;
    return n;
  }
}
