// A series reader thread (src/store/series-readers.ts): its own read-only use of the SQLite
// file, answering one stock's bars as columns from its packs by year (./bar-packs.ts). The read
// runs beside the thread that serves requests, and the columns come back as transferred
// buffers (no copy).

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { packRead } from './bar-packs.js';
import type { SeriesReply, SeriesRequest } from './series-readers.js';
import type { SeriesColumns } from './series-rows.js';

const { file } = workerData as { file: string };
const db = new Database(file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');

// Prepared on first use: the service starts its readers before its first start creates the tables.
let statements: { ascending: Database.Statement; descending: Database.Statement } | undefined;
const packs = (order: 'ASC' | 'DESC') =>
  db.prepare(`SELECT data FROM bar_packs WHERE security_id = ? AND year >= ? AND year <= ? ORDER BY year ${order}`).pluck(true);

function read(request: SeriesRequest): SeriesColumns {
  const { kind, securityId, from, to, last } = request;
  statements ??= { ascending: packs('ASC'), descending: packs('DESC') };
  const result = packRead(kind, { from, to, last });
  const statement = result.newestFirst ? statements.descending : statements.ascending;
  return result.columnsOf(statement.iterate(securityId, result.years.first, result.years.last) as IterableIterator<Uint8Array>);
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
