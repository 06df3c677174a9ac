// A series reader thread (src/store/series-readers.ts): its own read-only use of the SQLite
// file, answering one stock's bars as columns. Handing ~1,700-3,200 rows to JavaScript is most
// of an uncached history call; here it runs beside the thread that serves requests, and the
// columns come back as transferred buffers (no copy).

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { SeriesReply, SeriesRequest } from './series-readers.js';
import { COLUMNS_OF, columnsOfRows, type SeriesColumns, type SeriesKind } from './series-rows.js';
import { statementCache } from './sqlite-statements.js';

const { file } = workerData as { file: string };
const db = new Database(file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');

// The day as its number (days since 1970-01-01) straight from SQLite: parsing 'YYYY-MM-DD' in
// JavaScript cost as much as the row itself. Prepared on first use: the service starts its
// readers before its first start creates the tables.
const statements = statementCache(db, 4, true);
const sqlOf = (kind: SeriesKind, last: boolean): string =>
  `SELECT unixepoch(date) / 86400, ${COLUMNS_OF[kind].map((c) => c.column).join(', ')} FROM bars ` +
  `WHERE security_id = ? AND date >= ? AND date <= ? ORDER BY date ${last ? 'DESC LIMIT ?' : ''}`;

function read(request: SeriesRequest): SeriesColumns {
  const { kind, securityId, from, to, last } = request;
  const statement = statements(sqlOf(kind, last !== null));
  const rows = (last === null ? statement.all(securityId, from, to) : statement.all(securityId, from, to, last)) as number[][];
  return columnsOfRows(kind, rows, last !== null, (day) => day as number);
}

parentPort?.postMessage('ready');
parentPort?.on('message', (request: SeriesRequest) => {
  try {
    const reply = { id: request.id, ...read(request) };
    parentPort?.postMessage(reply, [reply.days.buffer as ArrayBuffer, ...reply.values.map((v) => v.buffer as ArrayBuffer)]);
  } catch (err) {
    parentPort?.postMessage({ id: request.id, error: (err as Error).message } satisfies SeriesReply);
  }
});
