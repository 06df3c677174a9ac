// Bulk readers: the official bulk releases (OpenDART's quarterly statement ZIPs, SEC's nightly
// companyfacts.zip and submissions.zip) read file by file and member by member into the same
// normalised records the API adapters return, through the same parsers. A reader never holds a
// whole archive: it yields batches as it reads, each complete in itself (a company's filings,
// a period's statements), and the importer stores each batch in its own transaction, so what
// was read is served as it arrives and a bad file costs only itself.

import type { Dataset } from '../domain/model.js';
import type { ProgressSink } from './progress.js';
import type { SourceLogger } from './source.js';

export interface BulkContext {
  /** The date the import treats as today (Asia/Seoul), `YYYY-MM-DD`. */
  asOf: string;
  signal?: AbortSignal;
  log: SourceLogger;
  progress: ProgressSink;
  /**
   * Counts an input the reader could not take (a file, a member, a row) by a short stable
   * reason (`not a ZIP`, `truncated or corrupt ZIP`, `row with a wrong column count`, ...),
   * with an example (a file or member name). Never a reason to stop reading the rest.
   */
  skip(reason: string, example?: string, count?: number): void;
  /**
   * Counts an input the reader kept but that is worth saying by a short stable reason (a
   * knowledge date assumed at the statutory deadline, a file in the folder that is not a bulk
   * file). Optional: a context without it drops these counts.
   */
  note?(reason: string, count?: number): void;
}

export interface BulkBatch {
  /** Records complete in themselves, stored in one transaction. */
  data: Partial<Dataset>;
}

export interface BulkReader {
  /** The source the records are attributed to (`opendart`, `sec`). */
  readonly source: string;
  read(ctx: BulkContext): AsyncIterable<BulkBatch>;
}

/**
 * A reader found files to read but could read none of them (every archive refused or broken):
 * the source fails, so the import says so, exits non-zero and leaves the source's cursor.
 */
export class BulkNothingRead extends Error {
  override readonly name = 'BulkNothingRead';
}
