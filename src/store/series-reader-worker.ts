// A series reader thread (src/store/series-readers.ts): its own read-only use of the SQLite
// file, answering one stock's bars as columns. Handing ~1,700-3,200 rows to JavaScript is most
// of an uncached history call; here it runs beside the thread that serves requests, and the
// columns come back as transferred buffers (no copy).

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { COLUMNS_OF, type SeriesReply, type SeriesRequest } from './series-readers.js';

const { file } = workerData as { file: string };
const db = new Database(file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');

// The day as its number (days since 1970-01-01) straight from SQLite: parsing 'YYYY-MM-DD' in
// JavaScript cost as much as the row itself.
const DAY = 'unixepoch(date) / 86400';
const statement = (kind: SeriesRequest['kind'], last: boolean) =>
  db
    .prepare(
      `SELECT ${DAY}, ${COLUMNS_OF[kind].map((c) => c.column).join(', ')} FROM bars ` +
        `WHERE security_id = ? AND date >= ? AND date <= ? ORDER BY date ${last ? 'DESC LIMIT ?' : ''}`,
    )
    .raw();
// Prepared on first use: the service starts its readers before its first start creates the tables.
const prepared = new Map<string, Database.Statement>();
const statementFor = (kind: SeriesRequest['kind'], last: boolean): Database.Statement => {
  const key = `${kind}${last ? 'Last' : ''}`;
  let st = prepared.get(key);
  if (st === undefined) {
    st = statement(kind, last);
    prepared.set(key, st);
  }
  return st;
};

function read(request: SeriesRequest): { id: number; days: Int32Array; values: Float64Array[] } {
  const { kind, securityId, from, to, last } = request;
  const rows = (last === null ? statementFor(kind, false).all(securityId, from, to) : statementFor(kind, true).all(securityId, from, to, last)) as number[][];
  const n = rows.length;
  const columns = COLUMNS_OF[kind];
  const days = new Int32Array(n);
  const values = columns.map(() => new Float64Array(n));
  const reversed = last !== null;
  for (let k = 0; k < n; k++) {
    const row = rows[reversed ? n - 1 - k : k] as number[];
    days[k] = row[0] as number;
    for (let c = 0; c < values.length; c++) (values[c] as Float64Array)[k] = Number(row[c + 1]);
  }
  return { id: request.id, days, values };
}

parentPort?.postMessage('ready');
parentPort?.on('message', (request: SeriesRequest) => {
  try {
    const reply = read(request);
    parentPort?.postMessage(reply, [reply.days.buffer as ArrayBuffer, ...reply.values.map((v) => v.buffer as ArrayBuffer)]);
  } catch (err) {
    parentPort?.postMessage({ id: request.id, error: (err as Error).message } satisfies SeriesReply);
  }
});
