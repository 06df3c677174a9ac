// The derived forms' step (src/store/derived.ts) on both engines: forms of another format are
// rebuilt from the records when the store opens, current ones are left alone, an interrupted
// rebuild resumes, and on PostgreSQL one of two instances opening together rebuilds. (Two SQLite
// processes rebuilding at once: test/cluster/derived-rebuild.test.ts.)

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { DERIVED_FORMATS, FIRST_FILL_FORMAT, formatKey, progressKey, type DerivedForm, type DerivedLog } from '../../src/store/derived.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { ageForms, assertCurrent, BAR_PACKS, FORMS, SPLIT_EVENTS, WITH_FILINGS, writeUniverse } from './derived-universe.js';

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
        rebuiltFromAged('bar_splits', 5, SPLIT_EVENTS),
        rebuiltFromAged('ttm_steps', 5, WITH_FILINGS),
        rebuiltFromAged('report_packs', 5, WITH_FILINGS),
        rebuiltFromAged('delistings', 5, 1),
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
        rebuiltFromAged('bar_splits', 5, SPLIT_EVENTS),
        rebuiltFromAged('ttm_steps', 5, WITH_FILINGS),
        rebuiltFromAged('report_packs', 5, WITH_FILINGS),
        rebuiltFromAged('delistings', 5, 1),
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
