// The derived forms' step. The bar packs, split events, TTM steps and report packs (./bar-packs.ts,
// ./bar-splits.ts, ./ttm-steps.ts, ./report-packs.ts) are derived from the records (bars, reports)
// and kept beside them, as is each security's `delisted_on` (./delistings.ts, a column of the
// securities, derived from the bars). Each form's code names its format (BAR_PACK_FORMAT,
// BAR_SPLITS_FORMAT, TTM_STEPS_FORMAT, REPORT_PACK_FORMAT, DELISTINGS_FORMAT);
// the store keeps the format each form was built at (meta `derived:<table>:format`). Every open of
// the store (./sqlite.ts, ./postgres.ts) runs this step after the migrations: each form whose
// stored format differs from its code's is rebuilt from the records, a batch of stocks per
// transaction, before the open hands the store to anything that reads or writes through it.
//
// Why an interrupted rebuild (a kill, a failed statement, an abort) never reads wrong:
// - a batch deletes and rebuilds the form's rows of a range of security ids and records how far it
//   got (meta `derived:<table>:progress` = `<format>:<last id>`) in one transaction: rows and
//   progress never disagree, and the next open resumes after the last id (a progress entry of
//   another format is ignored: that rebuild starts over);
// - the format is recorded only by the transaction that finds no stock left, and an open returns
//   only once every form is at its code's format, so the mix of a half-done rebuild is never read;
// - a batch first takes the market-data writers' turn (the dialect's `rebuildBatchTurn`:
//   PostgreSQL's advisory lock; SQLite's write lock, by writing before it reads), so a write of bars or filings lands wholly before
//   the batch (and is rebuilt from the rows it left) or wholly after it (and merges into the
//   rebuilt form). Two SQLite processes opening at once share the batches the same way.
// On PostgreSQL one instance rebuilds, holding a session advisory lock (the dialect's
// `rebuildAlone`); the others wait in their open, then find every form current.
//
// No format entry for a form: its table was filled by migrations 0006-0008 in their first build,
// which derived the forms themselves with the code of format 1 (FIRST_FILL_FORMAT), so such a
// store is current and nothing is rebuilt. The migrations create each table with the entry 0 (none
// built): a store they reach is built here from whatever records it holds (none: a few empty
// transactions).

import type { Kysely, Transaction } from 'kysely';
import { dayNumber } from '../domain/calendar.js';
import { BAR_PACK_FORMAT, encodePack } from './bar-packs.js';
import { BAR_SPLITS_FORMAT, deriveBarSplits } from './bar-splits.js';
import { DELISTINGS_FORMAT, deriveDelistings, storedMarkets } from './delistings.js';
import type { StoreDialect } from './dialect.js';
import { groupById, QueryRunner, upsert } from './queries.js';
import { REPORT_PACK_FORMAT } from './report-packs.js';
import type { DB } from './schema.js';
import { COLUMNS_OF } from './series-rows.js';
import { TTM_STEPS_FORMAT, writeFilingDerivatives } from './ttm-steps.js';

/** Each derived form (its table) and the format its code builds. */
export const DERIVED_FORMATS = {
  bar_packs: BAR_PACK_FORMAT,
  bar_splits: BAR_SPLITS_FORMAT,
  ttm_steps: TTM_STEPS_FORMAT,
  report_packs: REPORT_PACK_FORMAT,
  delistings: DELISTINGS_FORMAT,
} as const;
export type DerivedForm = keyof typeof DERIVED_FORMATS;
const FORMS = Object.keys(DERIVED_FORMATS) as DerivedForm[];

/** The format of a form with no entry: what migrations 0006-0008 filled in their first build. */
export const FIRST_FILL_FORMAT = 1;

/**
 * Stocks a batch rebuilds: ~2,600 bars each at full size (a batch of bar packs reads ~130,000
 * rows of 9 values, one of split events ~520,000 of 4), ~10 filings each.
 */
const STOCKS_PER_BATCH: Record<DerivedForm, number> = { bar_packs: 50, bar_splits: 200, ttm_steps: 200, report_packs: 200, delistings: 1000 };

/** A rebuild logs how far it is at most this often, besides its start and end. */
const PROGRESS_LOG_MS = 10_000;

export const formatKey = (form: DerivedForm): string => `derived:${form}:format`;
export const progressKey = (form: DerivedForm): string => `derived:${form}:progress`;

/** Where the step logs (pino's logger is one). */
export interface DerivedLog {
  info(fields: object, message: string): void;
}

export interface DerivedOptions {
  log?: DerivedLog;
  /** Stocks a batch (a transaction) rebuilds; by default 50 for bar packs, 200 for the others. */
  stocksPerBatch?: number;
  /** Stops the rebuild before its next batch (throws the signal's reason); the next open resumes. */
  signal?: AbortSignal;
  /** After each batch, awaited before the next: the stocks this call has rebuilt of the form, of `total` stocks stored. */
  onBatch?: (progress: { form: DerivedForm; stocks: number; total: number }) => void | Promise<void>;
}

/** What one form's rebuild did. */
export interface DerivedRebuild {
  form: DerivedForm;
  /** The format stored before (0: none built). */
  from: number;
  to: number;
  /** Stocks this call rebuilt (after a resume, only the rest). */
  stocks: number;
  /** Rows it wrote: bar packs (stock-years), split events, stocks with filings, or securities whose delisting changed. */
  rows: number;
  ms: number;
}

/** The store as the step uses it: its database and its dialect (./store.ts). */
export interface DerivedTarget {
  db: Kysely<DB>;
  dialect: StoreDialect;
}

/** The format each form was built at, as stored. */
export async function storedFormats(db: Kysely<DB>): Promise<Record<DerivedForm, number>> {
  const rows = await db.selectFrom('meta').select(['key', 'value']).where('key', 'in', FORMS.map(formatKey)).execute();
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  return Object.fromEntries(FORMS.map((form) => [form, formatOf(stored.get(formatKey(form)))])) as Record<DerivedForm, number>;
}

function formatOf(value: string | undefined): number {
  return value === undefined ? FIRST_FILL_FORMAT : Number(value);
}

function staleForms(formats: Record<DerivedForm, number>): DerivedForm[] {
  return FORMS.filter((form) => formats[form] !== DERIVED_FORMATS[form]);
}

/**
 * Rebuilds every form whose stored format differs from its code's, from the records (see the
 * top of this file); answers what it rebuilt. Current forms: one read, no write.
 */
export async function rebuildDerivedForms(target: DerivedTarget, options: DerivedOptions = {}): Promise<DerivedRebuild[]> {
  if (staleForms(await storedFormats(target.db)).length === 0) return [];
  // One connection for the whole rebuild: PostgreSQL's session lock belongs to it.
  return target.db.connection().execute((conn) =>
    target.dialect.rebuildAlone(
      conn,
      () => options.log?.info({}, 'waiting for another instance to rebuild the derived forms'),
      async () => {
        const done: DerivedRebuild[] = [];
        // Again under the lock: another instance may have rebuilt them meanwhile.
        const formats = await storedFormats(conn);
        for (const form of staleForms(formats)) done.push(await rebuildForm(conn, target, form, formats[form], options));
        return done;
      },
    ),
  );
}

async function rebuildForm(conn: Kysely<DB>, target: DerivedTarget, form: DerivedForm, from: number, options: DerivedOptions): Promise<DerivedRebuild> {
  const started = performance.now();
  const to = DERIVED_FORMATS[form];
  const size = options.stocksPerBatch ?? STOCKS_PER_BATCH[form];
  const total = Number((await conn.selectFrom('securities').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  options.log?.info({ form, from, to, total }, 'rebuilding a derived form');
  let stocks = 0;
  let rows = 0;
  let loggedAt = started;
  for (;;) {
    options.signal?.throwIfAborted();
    const batch = await conn.transaction().execute((trx) => rebuildBatch(trx, target, form, to, size));
    if (batch === null) break;
    stocks += batch.stocks;
    rows += batch.rows;
    await options.onBatch?.({ form, stocks, total });
    if (performance.now() - loggedAt >= PROGRESS_LOG_MS) {
      loggedAt = performance.now();
      options.log?.info({ form, to, stocks, total, ms: Math.round(loggedAt - started) }, 'rebuilding a derived form');
    }
  }
  const ms = Math.round(performance.now() - started);
  options.log?.info({ form, from, to, stocks, rows, ms }, 'derived form rebuilt');
  return { form, from, to, stocks, rows, ms };
}

/**
 * One batch, in its own transaction: the form's rows of the next `size` stocks after the recorded
 * progress, rebuilt from the records, and the progress moved past them; or, with no stock left,
 * the format recorded and the progress removed (null).
 */
async function rebuildBatch(trx: Transaction<DB>, target: DerivedTarget, form: DerivedForm, to: number, size: number): Promise<{ stocks: number; rows: number } | null> {
  await target.dialect.rebuildBatchTurn(trx, formatKey(form));
  const state = new Map((await trx.selectFrom('meta').select(['key', 'value']).where('key', 'in', [formatKey(form), progressKey(form)]).execute()).map((r) => [r.key, r.value]));
  if (formatOf(state.get(formatKey(form))) === to) return null; // another process finished it
  const after = progressAfter(state.get(progressKey(form)), to);
  const ids = (await trx.selectFrom('securities').select('id').where('id', '>', after).orderBy('id').limit(size).execute()).map((r) => r.id);
  const through = ids.at(-1);
  if (through === undefined) {
    await setEntry(trx, formatKey(form), String(to));
    await trx.deleteFrom('meta').where('key', '=', progressKey(form)).execute();
    return null;
  }
  if (form === 'delistings') {
    // A column of the securities, set (or cleared) for each security of the range.
    const rows = await deriveDelistings(trx, await storedMarkets(trx), { after, through });
    await setEntry(trx, progressKey(form), `${to}:${through}`);
    return { stocks: ids.length, rows };
  }
  // Every row of the range goes, a stock's rows of the records come back.
  await trx.deleteFrom(form).where('security_id', '>', after).where('security_id', '<=', through).execute();
  const rows =
    form === 'bar_packs'
      ? await packBars(trx, target, after, through)
      : form === 'bar_splits'
        ? await deriveBarSplits(trx, after, through, target.dialect.rawRows, target.dialect.rowRunner)
        : await writeFilingDerivatives(trx, ids, { steps: form === 'ttm_steps', packs: form === 'report_packs' }, target.dialect.rowRunner);
  await setEntry(trx, progressKey(form), `${to}:${through}`);
  return { stocks: ids.length, rows };
}

/** The last security id a rebuild to format `to` has done (0: none); a progress entry of another format counts for nothing. */
function progressAfter(value: string | undefined, to: number): number {
  const match = value === undefined ? null : /^(\d+):(\d+)$/.exec(value);
  return match !== null && Number(match[1]) === to ? Number(match[2]) : 0;
}

async function setEntry(trx: Transaction<DB>, key: string, value: string): Promise<void> {
  await trx
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** The bar packs of the stocks with ids in (after, through], one per stock and year of its bars; answers how many. */
async function packBars(trx: Transaction<DB>, target: DerivedTarget, after: number, through: number): Promise<number> {
  const rows = await new QueryRunner(trx, target.dialect.rawRows).arrays(
    trx
      .selectFrom('bars')
      .select(['security_id', 'date', ...COLUMNS_OF.bars.map(({ column }) => column)])
      .where('security_id', '>', after)
      .where('security_id', '<=', through)
      .orderBy('security_id')
      .orderBy('date'),
  );
  const packs: { security_id: number; year: number; data: Uint8Array }[] = [];
  for (const [id, bars] of groupById(rows, (row) => row)) {
    for (let start = 0; start < bars.length; ) {
      const year = (bars[start]?.[1] as string).slice(0, 4);
      let end = start;
      while (end < bars.length && (bars[end]?.[1] as string).slice(0, 4) === year) end++;
      const ofYear = bars.slice(start, end);
      // The columns after the id and the date, in COLUMNS_OF.bars order, as a pack holds them.
      const values = COLUMNS_OF.bars.map((_, c) => ofYear.map((bar) => Number(bar[2 + c])));
      packs.push({ security_id: id, year: Number(year), data: encodePack(ofYear.map((bar) => dayNumber(bar[1] as string)), values) });
      start = end;
    }
  }
  await upsert(target.dialect.rowRunner, trx, 'bar_packs', ['security_id', 'year'], packs);
  return packs.length;
}
