// The derived forms' step (src/store/derived.ts) on both engines: forms of another format are
// rebuilt from the records when the store opens, current ones are left alone, an interrupted
// rebuild resumes, and on PostgreSQL one of two instances opening together rebuilds.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import type { Dataset } from '../../src/domain/model.js';
import { DERIVED_FORMATS, FIRST_FILL_FORMAT, formatKey, progressKey, storedFormats, type DerivedForm, type DerivedLog } from '../../src/store/derived.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { bar, fiscalYear, weekdays } from '../domain/fixtures.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { assertFormsAreTheRecords } from './forms-oracle.js';

const FORMS = Object.keys(DERIVED_FORMATS) as DerivedForm[];
const CODES = ['000010', '000020', '000030', '000040', '000050'];

// Five stocks. Bars on 2023-12-27, 28, 29 and 2024-01-01, 02, 03 (two calendar years: two packs
// a stock) for every stock but the fourth: 4 x 2 = 8 bar packs. The four filings of FY 2023 for
// every stock but the third: 4 stocks with TTM steps and a report pack. Net income YTD of stock k
// (from 1): 10k, 30k, 60k, 100k, so its TTM from the FY filing (disclosed 2024-03-15) is 100k.
const universe: Partial<Dataset> = {
  securities: CODES.map((code) => ({ market: 'KR', code, name: `Derived ${code}`, exchange: 'KOSPI', sector: 'Steel', currency: 'KRW', fiscalYearEndMonth: 12, source: 'test' })),
  bars: CODES.flatMap((code, k) => (k === 3 ? [] : weekdays('2023-12-27', 6).map((date, i) => bar(date, 1_000 * (k + 1) + i + 0.37, { code, shares: 1_000_003 + i })))),
  reports: CODES.flatMap((code, k) => (k === 2 ? [] : fiscalYear(2023, [10, 30, 60, 100].map((ni) => ({ code, netIncome: ni * (k + 1), revenue: 1_000 * (k + 1) }))))),
};
const BAR_PACKS = 8;
const WITH_FILINGS = 4;

interface Place {
  name: string;
  skip: string | false;
  /** An empty database, and how to open a store on it. */
  create(): Promise<{ open: (log?: DerivedLog) => Promise<KyselyStore>; cleanup: () => Promise<void> }>;
}

const places: Place[] = [
  {
    name: 'SQLite',
    skip: false,
    async create() {
      const tmp = tempDir();
      const file = join(tmp.dir, 'db.sqlite');
      return { open: (log) => openSqliteStore(file, log ? { log } : {}), cleanup: async () => tmp.cleanup() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    async create() {
      const schema = await freshSchema();
      return { open: (log) => openPostgresStore(schema.url, 2, log), cleanup: schema.drop };
    },
  },
];

/** A log that keeps what the step logs; `rebuilt` its rebuilds' summaries (time left out). */
function collect() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const log: DerivedLog = { info: (fields, message) => lines.push({ fields: fields as Record<string, unknown>, message }) };
  const rebuilt = () => lines.filter((l) => l.message === 'derived form rebuilt').map(({ fields: { ms: _ms, ...rest } }) => rest);
  return { lines, log, rebuilt };
}

/** The summary `collect().rebuilt()` gives of a form rebuilt from the format `ageForms` leaves (the one before today's). */
const rebuiltFromAged = (form: DerivedForm, stocks: number, rows: number) => ({ form, from: DERIVED_FORMATS[form] - 1, to: DERIVED_FORMATS[form], stocks, rows });

/** The stored universe's security ids, ascending (the order a rebuild goes in). */
async function writeUniverse(store: KyselyStore): Promise<number[]> {
  await store.market.writeDataset(universe);
  return (await store.market.securities()).map((s) => s.id).sort((a, b) => a - b);
}

/**
 * What a store whose forms were built at the format before holds: that format's entries, and
 * values today's code cannot read (3 bytes: not a whole bar of 60, step of 41, nor a report
 * pack's 8-byte header), plus TTM steps for the stock that has no filings.
 */
async function ageForms(store: KyselyStore, ids: number[]): Promise<void> {
  const unreadable = new Uint8Array([1, 2, 3]);
  await store.db.updateTable('bar_packs').set({ data: unreadable }).execute();
  await store.db.updateTable('ttm_steps').set({ data: unreadable }).execute();
  await store.db.updateTable('report_packs').set({ data: unreadable }).execute();
  await store.db.insertInto('ttm_steps').values({ security_id: ids[2]!, data: unreadable }).execute();
  for (const form of FORMS) await store.refresh.setMeta(formatKey(form), String(DERIVED_FORMATS[form] - 1));
  await assert.rejects(store.market.ttmSteps(ids[0]!), /not whole steps/, 'aged: the steps do not read');
}

/** Every form at its code's format, no rebuild in progress, and every stock's forms its records. */
async function assertCurrent(store: KyselyStore, ids: number[]): Promise<void> {
  assert.deepEqual(await storedFormats(store.db), DERIVED_FORMATS);
  for (const form of FORMS) assert.equal(await store.refresh.getMeta(progressKey(form)), null, `${form}: no progress entry`);
  for (const id of ids) await assertFormsAreTheRecords(store, id);
  assert.equal((await store.db.selectFrom('bar_packs').select('year').execute()).length, BAR_PACKS);
  assert.equal((await store.db.selectFrom('ttm_steps').select('security_id').execute()).length, WITH_FILINGS, 'the stock without filings has no steps');
  assert.equal((await store.db.selectFrom('report_packs').select('security_id').execute()).length, WITH_FILINGS);
  const last = (await store.market.ttmSteps(ids[1]!)).at(-1);
  assert.deepEqual([last?.effectiveFrom, last?.referenceQuarter, last?.netIncome], ['2024-03-15', '2023Q4', 200], 'stock 2: FY 2023 net income 100 x 2');
}

for (const place of places) describe(`${place.name} derived forms at open`, { skip: place.skip }, () => {
  it('are rebuilt from the records when stored at an older format, and then read what the records hold', async () => {
    const { open, cleanup } = await place.create();
    let store = await open();
    try {
      const ids = await writeUniverse(store);
      await ageForms(store, ids);
      await store.close();
      const { log, rebuilt } = collect();
      store = await open(log);
      assert.deepEqual(rebuilt(), [
        rebuiltFromAged('bar_packs', 5, BAR_PACKS),
        rebuiltFromAged('ttm_steps', 5, WITH_FILINGS),
        rebuiltFromAged('report_packs', 5, WITH_FILINGS),
      ]);
      await assertCurrent(store, ids);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('are built empty on a fresh store, then left alone at the current format; no entry counts as the first fill', async () => {
    const { open, cleanup } = await place.create();
    const first = collect();
    // The migrations create the tables marked unbuilt (0): the first open builds them, from no stock.
    let store = await open(first.log);
    try {
      assert.deepEqual(first.rebuilt(), FORMS.map((form) => ({ form, from: 0, to: DERIVED_FORMATS[form], stocks: 0, rows: 0 })));
      const ids = await writeUniverse(store);
      // A mark a rebuild would erase: the first stock's TTM steps gone.
      await store.db.deleteFrom('ttm_steps').where('security_id', '=', ids[0]!).execute();
      await store.close();
      const current = collect();
      store = await open(current.log);
      assert.deepEqual(current.lines, [], 'nothing rebuilt, nothing logged');
      assert.deepEqual(await store.rebuildDerivedForms(), []);
      assert.deepEqual(await store.market.ttmSteps(ids[0]!), [], 'the mark is still there');

      // A store filled by migrations 0006-0008 in their first build has no entries: format 1.
      await store.db.deleteFrom('meta').where('key', 'in', FORMS.map(formatKey)).execute();
      await store.close();
      const firstFill = collect();
      store = await open(firstFill.log);
      assert.deepEqual(
        firstFill.rebuilt().map((r) => r.form),
        FORMS.filter((form) => DERIVED_FORMATS[form] !== FIRST_FILL_FORMAT),
        'only a form whose code moved past format 1 is rebuilt',
      );
      if (DERIVED_FORMATS.ttm_steps === FIRST_FILL_FORMAT) assert.deepEqual(await store.market.ttmSteps(ids[0]!), [], 'the mark is still there');
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('resume an interrupted rebuild after the last stock it finished, and end as the records', async () => {
    const { open, cleanup } = await place.create();
    let store = await open();
    try {
      const ids = await writeUniverse(store);
      await ageForms(store, ids);
      // The TTM steps' progress of a rebuild to another format (one abandoned): it counts for nothing.
      await store.refresh.setMeta(progressKey('ttm_steps'), `${DERIVED_FORMATS.ttm_steps + 1}:${ids[3]}`);
      const stop = new AbortController();
      const stopAfterOne = ({ stocks }: { stocks: number }) => {
        if (stocks >= 2) stop.abort();
      };
      await assert.rejects(store.rebuildDerivedForms({ stocksPerBatch: 2, signal: stop.signal, onBatch: stopAfterOne }), { name: 'AbortError' });
      // One batch landed: the bar packs of the first two stocks and how far it got; the format
      // is not recorded, so the store is not current, and the next open goes on.
      assert.equal(await store.refresh.getMeta(progressKey('bar_packs')), `${DERIVED_FORMATS.bar_packs}:${ids[1]}`);
      assert.equal(await store.refresh.getMeta(formatKey('bar_packs')), String(DERIVED_FORMATS.bar_packs - 1));
      assert.equal((await store.market.barSeries(ids[0]!, { to: '9999-12-31' })).days.length, 6, 'rebuilt');
      await assert.rejects(store.market.barSeries(ids[2]!, { to: '9999-12-31' }), /not whole bars/, 'not yet');
      await store.close();
      const { log, rebuilt } = collect();
      store = await open(log);
      // The bar packs of stocks 3 to 5 (the fourth has no bars: 2 stocks x 2 years); the others all five.
      assert.deepEqual(rebuilt(), [
        rebuiltFromAged('bar_packs', 3, 4),
        rebuiltFromAged('ttm_steps', 5, WITH_FILINGS),
        rebuiltFromAged('report_packs', 5, WITH_FILINGS),
      ]);
      await assertCurrent(store, ids);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

describe('PostgreSQL derived forms, two instances opening together', { skip: PG_SKIP }, () => {
  it('are rebuilt by one; the other waits and finds them current', async () => {
    const schema = await freshSchema();
    const setup = await openPostgresStore(schema.url, 2);
    let ids: number[];
    try {
      ids = await writeUniverse(setup);
      await ageForms(setup, ids);
    } finally {
      await setup.close();
    }
    const a = collect();
    const b = collect();
    const [x, y] = await Promise.all([openPostgresStore(schema.url, 2, a.log), openPostgresStore(schema.url, 2, b.log)]);
    try {
      const [rebuilder, other] = a.rebuilt().length > 0 ? [a, b] : [b, a];
      assert.deepEqual(rebuilder.rebuilt().map((r) => [r.form, r.stocks]), FORMS.map((form) => [form, 5]));
      assert.deepEqual(other.rebuilt(), [], 'the other rebuilt nothing');
      await assertCurrent(x, ids);
      await assertCurrent(y, ids);
    } finally {
      await x.close();
      await y.close();
      await schema.drop();
    }
  });
});

/** A child process that rebuilds the forms of `file` a stock per transaction once told to (./fixtures/rebuild-forms.ts). */
function rebuilder(file: string): { ready: Promise<void>; go: () => void; done: Promise<{ form: DerivedForm; stocks: number }[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'rebuild-forms.ts'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let ready: () => void = () => undefined;
  let result: { form: DerivedForm; stocks: number }[] | null = null;
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line === 'READY') ready();
      if (line.startsWith('DONE ')) result = JSON.parse(line.slice(5)) as { form: DerivedForm; stocks: number }[];
    }
  });
  const done = new Promise<{ form: DerivedForm; stocks: number }[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the rebuilding process took too long'));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && result !== null) resolve(result);
      else reject(new Error(`the rebuilding process exited ${code} without its result`));
    });
  });
  return { ready: new Promise((resolve) => (ready = resolve)), go: () => child.stdin.write('go\n'), done };
}

describe('SQLite derived forms, two processes rebuilding at once', () => {
  it('are rebuilt a stock once, by one or the other, and end as the records', async () => {
    const tmp = tempDir();
    const file = join(tmp.dir, 'db.sqlite');
    const setup = await openSqliteStore(file);
    const ids = await writeUniverse(setup);
    // Both open while the forms are current (nothing to rebuild at open), then the forms age and
    // both start together; each pauses after each batch, so their transactions interleave.
    const children = [rebuilder(file), rebuilder(file)];
    await Promise.all(children.map((c) => c.ready));
    await ageForms(setup, ids);
    await setup.close();
    let store: KyselyStore | null = null;
    try {
      for (const c of children) c.go();
      const results = await Promise.all(children.map((c) => c.done));
      for (const form of FORMS) {
        const stocks = results.flat().filter((r) => r.form === form).reduce((sum, r) => sum + r.stocks, 0);
        assert.equal(stocks, 5, `${form}: each of the 5 stocks rebuilt once`);
      }
      store = await openSqliteStore(file);
      await assertCurrent(store, ids);
    } finally {
      await store?.close();
      tmp.cleanup();
    }
  });
});
