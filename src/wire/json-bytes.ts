// A tool's answer as JSON text, written straight into UTF-8 bytes: the same bytes as
// `Buffer.from(JSON.stringify(value), 'utf8')`, at a third of the cost on long series. The one
// JSON writer of the service: the doors' tool answers (src/http/invoke.ts) and every other JSON
// reply (Fastify's reply serializer, `replyBytes`).
//
// Why: `JSON.stringify` of a 2,600-bar price history takes ~2.5 ms of the serving thread, and
// encoding the 300 KB string to UTF-8 ~0.65 ms more. Most of that is formatting 18,000 numbers
// through the general double-to-string path, and looking up each row's keys. Here integers (prices, volumes, traded values: the bulk
// of every series) take a digit loop, an array's rows that share their first row's keys write
// those keys from bytes made once, and nothing passes through an intermediate string.
//
// Only plain data is written here: plain objects, arrays, strings, numbers, booleans and null;
// rows held as columns (ColumnRows, src/domain/column-rows.ts: a long day series written from
// the history cache's typed arrays, what its `toJSON` rows would give); a screen's page of rows
// (ScreenRows, src/domain/screen.ts: copied from the row text kept for its index, ./screen-rows.ts);
// and values that write their own text (JsonText, ./json-text.ts). Anything else (an object with
// `toJSON`, a class instance, a typed array) is handed to `JSON.stringify` as it is, so the
// result is the same for every JSON value; a bigint throws as in `JSON.stringify`. Not
// reentrant (one module-level scratch buffer): `toJSON` methods run inside `JSON.stringify`,
// never here.

import { civilFromDays, daysInMonth } from '../domain/calendar.js';
import { ColumnRows, type RowColumn } from '../domain/column-rows.js';
import { ScreenRows } from '../domain/screen.js';
import { JsonText } from './json-text.js';
import { screenRowsText } from './screen-rows.js';

/** "00".."99" as byte pairs: two digits per step of the integer loop. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) => 48 + (i % 2 === 0 ? Math.floor(i / 20) : (i >> 1) % 10));

/** 10^1 .. 10^4: the decimals `JsonWriter.decimal` writes from their digits. */
const SCALES = [10, 100, 1000, 10000];

/** Deeper than this, `JSON.stringify` writes the rest (and reports a cycle as it would). */
const MAX_DEPTH = 64;
/** A scratch buffer that grew past this for one answer is let go after it. */
const KEEP_SCRATCH_BYTES = 4 * 1024 * 1024;

/** The most bytes one value of ColumnRows takes: a quoted date 12, a number at most 24 (`-1.2345678901234567e-308`). */
const MAX_VALUE_BYTES = 24;
/** 0001-01-01 and 9999-12-31 as day numbers: the dates `isoDay` writes. */
const FIRST_ISO_DAY = -719162;
const LAST_ISO_DAY = 2932896;

const QUOTE = 34;
const COMMA = 44;
const COLON = 58;

/** Whether `JSON.stringify` writes `s` as its characters in quotes (printable ASCII, no `"` or `\`). */
function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126 || c === QUOTE || c === 92) return false;
  }
  return true;
}

/** A plain object (object literal or `Object.create(null)`) without `toJSON`: written here. */
function isPlainObject(v: object): v is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** A value an object leaves out and an array writes as null. */
const isSkipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** A member value written as it is (no `toJSON` to ask whether it is left out). */
function isPlainMember(v: unknown): boolean {
  switch (typeof v) {
    case 'number':
    case 'string':
    case 'boolean':
      return true;
    case 'object':
      return v === null || Array.isArray(v) || isPlainObject(v);
    default:
      return false;
  }
}

/** The bytes of one row shape: `{"a":`, `,"b":`, ... for an array's rows that share their keys. */
interface Shape {
  keys: string[];
  heads: Uint8Array[];
}

class JsonWriter {
  buf = Buffer.allocUnsafe(64 * 1024);
  n = 0;
  /** The month `isoDay` wrote last: its first and last day numbers (none yet) and `"YYYY-MM-`. */
  private monthFirst = 1;
  private monthLast = 0;
  private readonly monthPrefix = new Uint8Array(9);

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(grown, 0, 0, this.n);
    this.buf = grown;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.n++] = b;
  }

  private bytes(b: Uint8Array): void {
    this.room(b.length);
    const buf = this.buf;
    let n = this.n;
    for (let i = 0; i < b.length; i++) buf[n++] = b[i] as number;
    this.n = n;
  }

  /** A value that writes its own text. */
  private text(v: JsonText): void {
    this.room(v.maxBytes);
    this.n = v.writeInto(this.buf, this.n);
  }

  /** Characters all below 128. */
  private ascii(s: string): void {
    this.room(s.length);
    const buf = this.buf;
    let n = this.n;
    for (let i = 0; i < s.length; i++) buf[n++] = s.charCodeAt(i);
    this.n = n;
  }

  /** Any text: its UTF-8 bytes. */
  private utf8(s: string): void {
    this.room(3 * s.length);
    this.n += this.buf.write(s, this.n, 'utf8');
  }

  string(s: string): void {
    if (!isPlainAscii(s)) return this.utf8(JSON.stringify(s));
    this.room(s.length + 2);
    const buf = this.buf;
    let n = this.n;
    buf[n++] = QUOTE;
    for (let i = 0; i < s.length; i++) buf[n++] = s.charCodeAt(i);
    buf[n++] = QUOTE;
    this.n = n;
  }

  number(x: number): void {
    // Integers below 2^53 are written digit by digit: what Number#toString gives them (no
    // exponent below 1e21). -0 is written 0, as JSON.stringify does. Most of a series' numbers
    // are integers below 2^31 (prices in won, volumes): those first.
    if (x >= 0 && x < 2147483648 && (x | 0) === x) {
      this.room(10);
      return this.uint31(x);
    }
    if (Number.isInteger(x) && x < 9007199254740992 && x > -9007199254740992) {
      this.room(17);
      if (x < 0) {
        this.buf[this.n++] = 45;
        x = -x;
      }
      if (x < 2147483648) return this.uint31(x);
      const high = Math.floor(x / 1e8);
      this.uint31(high);
      this.eightDigits(x - high * 1e8);
      return;
    }
    if (this.decimal(x)) return;
    this.ascii(Number.isFinite(x) ? String(x) : 'null');
  }

  /**
   * A number with at most four decimals (prices in dollars and cents, ratios), written from
   * its digits: when r / 10^k is x for an integer r of at most 15 digits, x is the double
   * nearest the decimal r / 10^k (IEEE division rounds correctly), and a decimal of at most 15
   * significant digits is the shortest text that reads back as its double (DBL_DIG), which is
   * what Number#toString writes, in plain notation at these magnitudes. Trying k = 1 first
   * leaves no trailing zero. Says false (nothing written) for any other number.
   */
  private decimal(x: number): boolean {
    const negative = x < 0;
    const a = negative ? -x : x;
    if (!(a < 1e11)) return false;
    for (let k = 0; k < 4; k++) {
      const scale = SCALES[k] as number;
      const r = Math.round(a * scale);
      if (r / scale !== a) continue;
      const whole = Math.floor(r / scale);
      let fraction = r - whole * scale;
      this.room(32);
      if (negative) this.buf[this.n++] = 45;
      if (whole < 2147483648) this.uint31(whole);
      else this.number(whole);
      this.buf[this.n++] = 46;
      // The fraction's k + 1 digits, leading zeros included (0.05 is "0.05").
      const buf = this.buf;
      let end = this.n + k + 1;
      this.n = end;
      for (let d = 0; d <= k; d++) {
        const q = (fraction / 10) | 0;
        buf[--end] = 48 + fraction - q * 10;
        fraction = q;
      }
      return true;
    }
    return false;
  }

  /** 0 <= x < 2^31, an integer; room already made. */
  private uint31(x: number): void {
    const digits = x < 10 ? 1 : x < 100 ? 2 : x < 1e3 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : x < 1e9 ? 9 : 10;
    const buf = this.buf;
    let end = this.n + digits;
    this.n = end;
    while (x >= 100) {
      const q = (x / 100) | 0;
      const pair = (x - q * 100) * 2;
      buf[--end] = DIGIT_PAIRS[pair + 1] as number;
      buf[--end] = DIGIT_PAIRS[pair] as number;
      x = q;
    }
    if (x >= 10) {
      buf[--end] = DIGIT_PAIRS[x * 2 + 1] as number;
      buf[--end] = DIGIT_PAIRS[x * 2] as number;
    } else buf[--end] = 48 + x;
  }

  /** 0 <= x < 1e8, as exactly eight digits; room already made. */
  private eightDigits(x: number): void {
    const buf = this.buf;
    let end = this.n + 8;
    this.n = end;
    for (let i = 0; i < 4; i++) {
      const q = (x / 100) | 0;
      const pair = (x - q * 100) * 2;
      buf[--end] = DIGIT_PAIRS[pair + 1] as number;
      buf[--end] = DIGIT_PAIRS[pair] as number;
      x = q;
    }
  }

  value(v: unknown, depth: number): void {
    switch (typeof v) {
      case 'number':
        return this.number(v);
      case 'string':
        return this.string(v);
      case 'boolean':
        return this.ascii(v ? 'true' : 'false');
      case 'object':
        if (v === null) return this.ascii('null');
        if (v instanceof ColumnRows) return this.columnRows(v);
        if (v instanceof JsonText) return this.text(v);
        if (v instanceof ScreenRows) return this.text(screenRowsText(v));
        if (depth < MAX_DEPTH) {
          if (Array.isArray(v)) return this.array(v, depth + 1);
          if (isPlainObject(v)) return this.object(v, depth + 1);
        }
        // In an array, a `toJSON` that gives undefined is written null, as JSON.stringify does.
        return this.utf8(foreign(v) ?? 'null');
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      default:
        // Undefined, a function or a symbol: left out of an object and null in an array
        // (their callers see to that), and no JSON text at all on their own.
        throw new TypeError(`${typeof v} is not a JSON value`);
    }
  }

  /**
   * Rows written from their columns (what `rows.toJSON()` gives, without making the rows): room
   * made once a row for its key bytes, dates and numbers, and dates written from their day
   * numbers (`isoDay`), not through their texts. A 2,600-bar price history is ~20,000 values.
   */
  private columnRows(rows: ColumnRows): void {
    const { keys, columns, start, end } = rows;
    const objects = rows.shape === 'objects';
    const width = columns.length;
    // `{"key":` / `,"key":` for objects; `[` / `,` for arrays.
    const heads = keys.map((k, c) => Buffer.from(objects ? `${c === 0 ? '{' : ','}${JSON.stringify(k)}:` : c === 0 ? '[' : ',', 'utf8'));
    let rowBytes = 2;
    for (const head of heads) rowBytes += head.length + MAX_VALUE_BYTES;
    const close = objects ? 125 : 93;
    this.byte(91);
    for (let i = start; i < end; i++) {
      this.room(rowBytes);
      if (i > start) this.buf[this.n++] = COMMA;
      for (let c = 0; c < width; c++) {
        const head = heads[c] as Uint8Array;
        const buf = this.buf;
        let n = this.n;
        for (let b = 0; b < head.length; b++) buf[n++] = head[b] as number;
        this.n = n;
        const column = columns[c] as RowColumn;
        if (column.kind === 'number') this.number(column.values[i] as number);
        else if (!this.isoDay(column.days[i] as number)) this.string(rows.dateOf(column.days[i] as number));
      }
      this.room(1);
      this.buf[this.n++] = close;
    }
    this.byte(93);
  }

  /**
   * A day number (days since 1970-01-01) as `"YYYY-MM-DD"`, what `dateOfDayNumber` writes
   * (src/domain/calendar.ts, the same civil-from-days arithmetic), for the years 1 to 9999; says
   * false (nothing written) for any other day. Room for 12 bytes already made.
   */
  private isoDay(day: number): boolean {
    if (!(day >= FIRST_ISO_DAY && day <= LAST_ISO_DAY)) return false;
    // A series' days are mostly in the month of the day before: its `"YYYY-MM-` is kept.
    if (!(day >= this.monthFirst && day <= this.monthLast)) this.month(day);
    const buf = this.buf;
    const n = this.n;
    const prefix = this.monthPrefix;
    for (let b = 0; b < 9; b++) buf[n + b] = prefix[b] as number;
    const d = day - this.monthFirst + 1;
    buf[n + 9] = DIGIT_PAIRS[d * 2] as number;
    buf[n + 10] = DIGIT_PAIRS[d * 2 + 1] as number;
    buf[n + 11] = QUOTE;
    this.n = n + 12;
    return true;
  }

  /** The month of `day` (years 1 to 9999): its first and last day numbers and its `"YYYY-MM-` bytes. */
  private month(day: number): void {
    // Once a month of a series, so the calendar's own arithmetic serves.
    const { y, m, d } = civilFromDays(day);
    const length = daysInMonth(y, m);
    this.monthFirst = day - d + 1;
    this.monthLast = this.monthFirst + length - 1;
    const hi = (y / 100) | 0;
    const lo = y - hi * 100;
    const prefix = this.monthPrefix;
    prefix[0] = QUOTE;
    prefix[1] = DIGIT_PAIRS[hi * 2] as number;
    prefix[2] = DIGIT_PAIRS[hi * 2 + 1] as number;
    prefix[3] = DIGIT_PAIRS[lo * 2] as number;
    prefix[4] = DIGIT_PAIRS[lo * 2 + 1] as number;
    prefix[5] = 45;
    prefix[6] = DIGIT_PAIRS[m * 2] as number;
    prefix[7] = DIGIT_PAIRS[m * 2 + 1] as number;
    prefix[8] = 45;
  }

  private array(items: readonly unknown[], depth: number): void {
    this.byte(91);
    let shape: Shape | null = null;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.byte(COMMA);
      const item = items[i];
      if (isSkipped(item)) {
        this.ascii('null');
        continue;
      }
      if (typeof item === 'object' && item !== null && !Array.isArray(item) && depth < MAX_DEPTH && isPlainObject(item)) {
        shape ??= shapeOf(item);
        if (this.shaped(item, shape, depth + 1)) continue;
      }
      this.value(item, depth);
    }
    this.byte(93);
  }

  /**
   * A row written with its shape's key bytes, when its keys are the shape's, in order, and
   * none of its values is left out. Else nothing is written and it says false.
   */
  private shaped(row: Record<string, unknown>, shape: Shape, depth: number): boolean {
    const start = this.n;
    const { keys, heads } = shape;
    let i = 0;
    for (const key in row) {
      const v = row[key];
      if (key !== keys[i]) {
        this.n = start;
        return false;
      }
      // Numbers and strings (nearly every value of a series) without the general dispatch.
      if (typeof v === 'number') {
        this.bytes(heads[i] as Uint8Array);
        this.number(v);
      } else if (typeof v === 'string') {
        this.bytes(heads[i] as Uint8Array);
        this.string(v);
      } else if (isPlainMember(v)) {
        this.bytes(heads[i] as Uint8Array);
        this.value(v, depth);
      } else {
        this.n = start;
        return false;
      }
      i++;
    }
    if (i !== keys.length || i === 0) {
      this.n = start;
      return false;
    }
    this.byte(125);
    return true;
  }

  private object(o: Record<string, unknown>, depth: number): void {
    this.byte(123);
    let first = true;
    for (const key in o) {
      const v = o[key];
      if (isSkipped(v)) continue;
      // A member whose `toJSON` gives undefined is left out, as JSON.stringify does.
      const text = typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ColumnRows) && !(v instanceof JsonText) && !(v instanceof ScreenRows) && (depth >= MAX_DEPTH || !isPlainObject(v)) ? foreign(v) : null;
      if (text === undefined) continue;
      if (!first) this.byte(COMMA);
      first = false;
      this.string(key);
      this.byte(COLON);
      if (text === null) this.value(v, depth);
      else this.utf8(text);
    }
    this.byte(125);
  }
}

/**
 * What JSON.stringify writes for a value that is not plain data (a `toJSON`, a class instance,
 * or past MAX_DEPTH), or undefined when it leaves it out. Its `toJSON` is called without the
 * member's key (no answer's value reads it).
 */
const foreign = (v: object): string | undefined => JSON.stringify(v) as string | undefined;

function shapeOf(row: Record<string, unknown>): Shape {
  const keys = Object.keys(row);
  const heads = keys.map((k, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(k)}:`, 'utf8'));
  return { keys, heads };
}

let scratch: JsonWriter | null = null;

/** `Buffer.from(JSON.stringify(value), 'utf8')` for a JSON answer (never undefined). */
export function jsonBytes(value: unknown): Buffer {
  const writer = (scratch ??= new JsonWriter());
  scratch = null;
  writer.n = 0;
  try {
    writer.value(value, 0);
    const out = Buffer.allocUnsafe(writer.n);
    writer.buf.copy(out, 0, 0, writer.n);
    return out;
  } finally {
    if (writer.buf.length <= KEEP_SCRATCH_BYTES) scratch = writer;
  }
}

/**
 * Fastify's reply serializer (`setReplySerializer`): every JSON reply that is not bytes already
 * written by `jsonBytes`. Fastify sends a Buffer a serializer returns as it is (its types say
 * string).
 */
const bytesOf: (payload: unknown) => Buffer = jsonBytes;
export const replyBytes = bytesOf as unknown as (payload: unknown) => string;
