// Series reader threads for the SQLite store: the per-request history reads (one stock's bars
// as columns, `barSeries` / `marketCapSeries`) and the recompute's bulk reads of recent bars and
// flows (`rows`) run on worker threads with their own connections, so that the thread serving
// requests does not spend an uncached history call or a refresh handing rows over, and both
// cores serve. Each reader answers one request at a time, in order; a request goes to
// the reader with the fewest waiting. A reader that dies fails what it had and is replaced; one
// that cannot start (the file cannot be opened) is not, and the pool refuses from then on: the
// store then reads on its own thread (the readers are a speed-up, never the only way).

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/worker.js';
import type { SeriesColumns, SeriesKind, SeriesRange } from './series-rows.js';

export interface SeriesRequest {
  id: number;
  kind: SeriesKind;
  securityId: number;
  from: string;
  to: string;
  /** The last N bars of the range (newest first in SQL), or every bar. */
  last: number | null;
}

/**
 * How a bulk read's column comes back: `int` an integer of 32 bits (a security id), `day` a
 * `YYYY-MM-DD` text as its day number (days since 1970-01-01), `float` a number (null is 0, as
 * `Number(null)` gives), `nullableFloat` a number or NaN for null.
 */
export type ColumnType = 'int' | 'day' | 'float' | 'nullableFloat';

/**
 * Column `c` of a bulk read's array rows as `type` says (`dayOf` turns a date text into its day
 * number): what a reader thread hands back, and what the store makes of the rows it reads itself.
 */
export function columnOfRows(rows: readonly unknown[][], c: number, type: ColumnType, dayOf: (text: string) => number): Int32Array | Float64Array {
  if (type === 'int') return Int32Array.from(rows, (row) => Number(row[c]));
  if (type === 'day') return Int32Array.from(rows, (row) => dayOf(row[c] as string));
  if (type === 'nullableFloat') return Float64Array.from(rows, (row) => (row[c] === null ? Number.NaN : Number(row[c])));
  return Float64Array.from(rows, (row) => Number(row[c]));
}

/** A bulk read (the recompute's recent bars and flows): a compiled statement's rows as columns. */
export interface RowsRequest {
  id: number;
  kind: 'rows';
  sql: string;
  parameters: readonly unknown[];
  types: readonly ColumnType[];
}

/** A bulk read's rows as one typed array per column, in select order. */
export interface RowColumns {
  count: number;
  columns: (Int32Array | Float64Array)[];
}

export type ReaderRequest = SeriesRequest | RowsRequest;
export type SeriesReply = ({ id: number } & (SeriesColumns | RowColumns)) | { id: number; error: string };

interface Pending {
  resolve: (reply: SeriesColumns | RowColumns) => void;
  reject: (err: Error) => void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Its connection is open (it said so); a reader that dies before is not replaced. */
  ready: boolean;
}

export class SeriesReaders {
  private readonly readers: Reader[] = [];
  private nextId = 1;
  private closing = false;
  /** Reads answered by the threads (not failed, not refused). */
  answered = 0;
  /** Why the pool no longer reads: a reader could not start. */
  private broken: Error | null = null;

  constructor(
    private readonly file: string,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.readers.push(this.start());
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.readers.map((r) => r.worker.terminate()));
  }

  /** One stock's bars of `kind` in `range`, as columns (`seriesOf` of ./series-rows.ts makes the series of them). */
  columns(kind: SeriesKind, securityId: number, range: SeriesRange): Promise<SeriesColumns> {
    return this.send({ id: this.nextId++, kind, securityId, from: range.from ?? '', to: range.to, last: range.last ?? null }) as Promise<SeriesColumns>;
  }

  /**
   * A compiled statement's rows as columns of `types` (one per selected column), read on a
   * reader thread: the recompute's bulk reads of recent bars and flows, ~1.1 million values at
   * full size, handed over as a few transferred buffers while the serving thread does other work.
   */
  rows(sql: string, parameters: readonly unknown[], types: readonly ColumnType[]): Promise<RowColumns> {
    return this.send({ id: this.nextId++, kind: 'rows', sql, parameters, types }) as Promise<RowColumns>;
  }

  private send(request: ReaderRequest): Promise<SeriesColumns | RowColumns> {
    if (this.closing) return Promise.reject(new Error('the series readers are closed'));
    if (this.broken) return Promise.reject(this.broken);
    let reader = this.readers[0] as Reader;
    for (const r of this.readers) if (r.pending.size < reader.pending.size) reader = r;
    return new Promise((resolve, reject) => {
      reader.pending.set(request.id, { resolve, reject });
      reader.worker.postMessage(request);
    });
  }

  private start(): Reader {
    // A reader's garbage is one read's rows at a time: a small heap keeps the process's RSS in
    // its budget (docs/performance.md), and scavenges stay short.
    const worker = startWorker(new URL('./series-reader-worker', import.meta.url), import.meta.url, { file: this.file }, { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 });
    // Readers never keep the process alive: a stopping service closes them, a killed one has none.
    worker.unref();
    const reader: Reader = { worker, pending: new Map(), ready: false };
    worker.on('message', (reply: SeriesReply | 'ready') => {
      if (reply === 'ready') {
        reader.ready = true;
        return;
      }
      const pending = reader.pending.get(reply.id);
      if (pending === undefined) return;
      reader.pending.delete(reply.id);
      if ('error' in reply) pending.reject(new Error(`series read failed: ${reply.error}`));
      else {
        this.answered++;
        pending.resolve(reply);
      }
    });
    let failure: Error | null = null;
    const fail = (err: Error) => {
      for (const pending of reader.pending.values()) pending.reject(err);
      reader.pending.clear();
    };
    worker.on('error', (err) => {
      failure = new Error(`series reader failed: ${err.message}`);
      fail(failure);
    });
    worker.on('exit', (code) => {
      fail(new Error(`series reader exited with ${code}`));
      if (this.closing) return;
      if (!reader.ready) {
        this.broken = failure ?? new Error(`series reader exited with ${code} before it could read`);
        return;
      }
      const at = this.readers.indexOf(reader);
      if (at >= 0) this.readers[at] = this.start();
    });
    return reader;
  }
}
