// Prepared statements reused by SQL text, for the store's connection and its reader threads'.

import type Database from 'better-sqlite3';

/**
 * Prepared statements reused by SQL text. Kysely prepares every query anew, and for the small
 * statements of every request (key lookup, usage count) preparing costs as much as running.
 * Bounded, because multi-row inserts vary in row count. Safe because statements are only run
 * with all() and run(), never left open in an iterate(). `raw`: statements that give rows as
 * arrays of column values (the store's bulk reads). A statement is prepared on first use.
 */
export function statementCache(database: Database.Database, max: number, raw = false): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (raw) statement.raw(true);
      if (statements.size >= max) statements.clear();
      statements.set(sql, statement);
    }
    return statement;
  };
}
