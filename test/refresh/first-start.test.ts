// The first start from the bulk files: what a folder's DART ZIP names say of their coverage and
// the cursor set from it; the order of the import and the API sources (placement first); the
// refresh's progress on the board and a run with every source failed recorded `failed`; and the
// real service (startApp) with a real adapter against the loopback upstream of recorded answers,
// serving stocks while the bulk import has not finished.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { bulkPlan, dartCoverage, folderContents, type BulkPlan } from '../../src/refresh/bulk-sources.js';
import { bulkFirstStart, sourcesBeforeBulk } from '../../src/refresh/first-start.js';
import { Importer, type BulkPreparation } from '../../src/refresh/import.js';
import { Refresher } from '../../src/refresh/pipeline.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import type { FinancialReport } from '../../src/domain/model.js';
import { EcbSource } from '../../src/sources/ecb/source.js';
import { FscSource } from '../../src/sources/fsc/source.js';
import { parseDartEnvelope, parseFinancialStatements } from '../../src/sources/opendart/parse.js';
import { OpenDartSource } from '../../src/sources/opendart/source.js';
import { NO_CONVENIENCE_TRANSLATION, NO_REFERENCE_RATE } from '../../src/sources/sec/parse.js';
import { SecSource } from '../../src/sources/sec/source.js';
import type { Source, SourceContext, SourceResult } from '../../src/sources/source.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { companyFacts, CONSTRUCTED_FILER } from '../e2e/constructed-foreign.js';
import { realJson, startUpstream, type Upstream } from '../e2e/upstream.js';
import { zipOf } from '../sources/helpers.js';
import { tempDir } from '../support/tmp.js';
import { archive, FactsZipReader } from './bulk-readers.js';

const silent = pino({ level: 'silent' });

describe('what the bulk files cover, and the cursors set from them', () => {
  // DART's published names (FORMATS.md): 2015_4Q_BS_20160531132458.zip was rebuilt as
  // 2015_4Q_BS_20230503040109.zip; the stamp is the build time.
  const names = [
    '2015_4Q_BS_20230503040109.zip',
    '2025_1Q_BS_20250606040000.zip',
    '2025_2Q_PL_20250905040000.zip',
    '2025_2Q_BS_20250903040000.zip',
    '2025_2Q_CF_20250910040000.zip',
    'companyfacts.zip',
    'notes.txt',
  ];

  it('takes the newest period and the earliest build date of its files', () => {
    // Newest period 2025 Q2 (2025*10+2 = 20252 > 20251 > 20154); its files were built on
    // 2025-09-05, 2025-09-03 and 2025-09-10: the earliest, 2025-09-03, bounds what they hold.
    assert.deepEqual(dartCoverage(names), { period: '2025-Q2', builtOn: '2025-09-03' });
    assert.equal(dartCoverage(['companyfacts.zip', '2025_5Q_BS_20250903040000.zip', '2025_1Q_BS_2025.zip']), null);
  });

  it('lists a folder by the published names, and nothing for a missing folder', () => {
    const tmp = tempDir('bulk-folder-');
    try {
      for (const n of names) writeFileSync(join(tmp.dir, n), 'x');
      assert.deepEqual(folderContents(tmp.dir), {
        dartZips: ['2015_4Q_BS_20230503040109.zip', '2025_1Q_BS_20250606040000.zip', '2025_2Q_BS_20250903040000.zip', '2025_2Q_CF_20250910040000.zip', '2025_2Q_PL_20250905040000.zip'],
        companyfacts: true,
        submissions: false,
        others: [{ name: 'notes.txt', reason: 'not a bulk file the service reads' }],
      });
      assert.deepEqual(folderContents(join(tmp.dir, 'none')), { dartZips: [], companyfacts: false, submissions: false, others: [] });
    } finally {
      tmp.cleanup();
    }
  });

  it('sets the OpenDART cursor where the files end, bounded to 89 days, only when none is set and the import read through', async () => {
    const tmp = tempDir('bulk-cursor-');
    const store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    try {
      for (const n of names) writeFileSync(join(tmp.dir, n), 'x');
      // A folder with DART files and companyfacts.zip gives both inputs; SEC needs SEC_USER_AGENT to read.
      const planOn = (asOf: string) => bulkPlan({ dir: tmp.dir, download: false, asOf, sources: [], env: {} });
      assert.deepEqual(planOn('2025-11-25').inputs.map((i) => i.source), ['opendart', 'sec']);
      // A failed import sets nothing.
      assert.deepEqual(await planOn('2025-11-25').setCursors(store.refresh, [{ source: 'opendart', ok: false }]), {});
      assert.equal(await store.refresh.getMeta('cursor:opendart'), null);
      // asOf 2025-11-25: 89 days back is 2025-08-28 (Nov 25 -> Oct 27 is 29 days, -> Sep 27 59, -> Aug 28 89),
      // before the build date 2025-09-03: the cursor is the build date.
      assert.deepEqual(await planOn('2025-11-25').setCursors(store.refresh, [{ source: 'opendart', ok: true }]), { opendart: '{"date":"2025-09-03","known":[]}' });
      assert.equal(await store.refresh.getMeta('cursor:opendart'), '{"date":"2025-09-03","known":[]}');
      // A cursor already there (hourly runs went on) is never moved back.
      assert.deepEqual(await planOn('2026-03-01').setCursors(store.refresh, [{ source: 'opendart', ok: true }]), {});
      await store.db.deleteFrom('meta').where('key', '=', 'cursor:opendart').execute();
      // asOf 2026-03-01: the build date is 179 days back; the cursor is 89 days back, 2025-12-02
      // (Mar 1 -> Feb 1 is 28 days, -> Jan 1 59, -> Dec 2 89).
      assert.deepEqual(await planOn('2026-03-01').setCursors(store.refresh, [{ source: 'opendart', ok: true }]), { opendart: '{"date":"2025-12-02","known":[]}' });
    } finally {
      await store.close();
      tmp.cleanup();
    }
  });

  it('fails the SEC input alone, with its reason, when SEC_USER_AGENT is not set', async () => {
    const tmp = tempDir('bulk-sec-');
    try {
      writeFileSync(join(tmp.dir, 'companyfacts.zip'), 'x');
      const [sec] = bulkPlan({ dir: tmp.dir, download: false, asOf: '2025-11-25', sources: [], env: {} }).inputs;
      await assert.rejects(sec!.open({ log: { info: () => undefined, warn: () => undefined }, progress: () => undefined, skip: () => undefined }), /SEC_USER_AGENT is not set/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe("the SEC archive's foreign filers at the ECB's rates (a first start reads the rates itself)", () => {
  it('converts a EUR filer without a USD translation when the ECB source is configured; leaves it out, counted, when not', async () => {
    // The loopback upstream: SEC's recorded ticker list plus the CONSTRUCTED EUR filer (EURX, test/e2e/constructed-foreign.ts),
    // and the real ECB excerpt (test/fixtures/real/ecb) as eurofxref-hist.zip.
    const upstream = await startUpstream({ euroFiler: true });
    const tmp = tempDir('bulk-ecb-');
    try {
      writeFileSync(join(tmp.dir, 'companyfacts.zip'), zipOf([{ name: `CIK${String(CONSTRUCTED_FILER.cik).padStart(10, '0')}.json`, content: JSON.stringify(companyFacts('EUR', '20-F')) }]));
      const env = { SEC_USER_AGENT: 'e2e-test admin@example.com', SEC_BASE_URL: upstream.base, SEC_DATA_BASE_URL: upstream.base, SEC_TICKERS: CONSTRUCTED_FILER.ticker };
      const read = async (sources: Source[]): Promise<{ reports: FinancialReport[]; skipped: Record<string, number> }> => {
        const [sec] = bulkPlan({ dir: tmp.dir, download: false, asOf: '2024-06-30', sources, env }).inputs;
        const skipped: Record<string, number> = {};
        const ctx = { asOf: '2024-06-30', log: { info: () => undefined, warn: () => undefined }, progress: () => undefined, skip: (reason: string, _e?: string, n = 1) => void (skipped[reason] = (skipped[reason] ?? 0) + n) };
        const reader = await sec!.open(ctx);
        const reports: FinancialReport[] = [];
        for await (const batch of reader.read(ctx)) reports.push(...(batch.data.reports ?? []));
        return { reports, skipped };
      };
      const secApi = SecSource.fromEnv(env)!;
      const withRates = await read([secApi, new EcbSource({ baseUrl: upstream.base })]);
      // FY2023 revenue EUR 24,000 M at the average of 2023's 255 rates (sum 275.7235 in the fixture): USD 25,950.45 M.
      const fy2023 = withRates.reports.find((r) => r.fiscalYear === 2023 && r.fiscalQuarter === 4);
      assert.equal(((fy2023?.revenue ?? 0) / 1e6).toFixed(2), (24_000 * (275.7235 / 255)).toFixed(2));
      assert.equal(withRates.skipped[NO_REFERENCE_RATE], undefined);
      assert.ok(upstream.answered.some((a) => a.path === '/stats/eurofxref/eurofxref-hist.zip'));
      const without = await read([secApi]);
      assert.deepEqual([without.reports.length, without.skipped[NO_CONVENIENCE_TRANSLATION]], [0, 2]);
    } finally {
      tmp.cleanup();
      await upstream.close();
    }
  });
});

/** A scripted API source that logs when it runs and with which cursor. */
class Scripted implements Source {
  constructor(
    readonly name: string,
    private readonly events: string[],
    private readonly result: (ctx: SourceContext) => SourceResult | Promise<SourceResult>,
  ) {}
  async ingest(ctx: SourceContext): Promise<SourceResult> {
    this.events.push(`${this.name} ingest (cursor ${ctx.cursor ?? 'none'})`);
    ctx.progress?.({ phase: 'calling', unit: 'days', done: 1, total: 1 });
    return this.result(ctx);
  }
}

describe('the first start from the bulk files, in the order placement needs', () => {
  const tmp = tempDir('first-start-');
  let store: KyselyStore;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('runs the sources that need no placement beside the import, sets the cursors, then runs every source', async () => {
    const events: string[] = [];
    const clock = () => new Date('2026-11-25T01:00:00Z');
    const board = new ProgressBoard(clock);
    // polygon's US bar of AAPL needs the placement the SEC bulk brings; its close is the recorded 341.07 (2026-09-25).
    const aaplBar = { market: 'US' as const, code: 'AAPL', date: '2026-09-25', open: 336.04, high: 341.67, low: 334.53, close: 341.07, volume: 30_002_507, tradedValue: 1e10, shares: 1_000_000, marketCap: 341_070_000, source: 'polygon' };
    const sources = [
      new Scripted('opendart', events, () => ({ data: {}, cursor: 'x' })),
      new Scripted('fsc', events, () => ({ data: {}, cursor: '2026-11-24' })),
      new Scripted('sec', events, () => ({ data: {}, cursor: '2026-11-25' })),
      new Scripted('polygon', events, () => ({ data: { bars: [aaplBar] }, cursor: '2026-09-25' })),
    ];
    assert.deepEqual(sourcesBeforeBulk(sources), ['fsc']);
    const reader = new FactsZipReader('sec', archive(tmp.dir, 'facts.zip', ['AAPL']), { onBatch: () => events.push('sec bulk batch') });
    const input: BulkPreparation = {
      source: 'sec',
      open: async () => {
        events.push('sec bulk open');
        return reader;
      },
    };
    const plan: BulkPlan = {
      inputs: [input],
      setCursors: async (refresh, statuses) => {
        events.push(`cursors (${statuses.map((s) => `${s.source} ${s.ok ? 'ok' : 'failed'}`).join(', ')})`);
        await refresh.setMeta('cursor:sec', '2026-11-24');
        await refresh.setMeta('cursor:opendart', '{"date":"2026-09-03","known":[]}');
        return { sec: '2026-11-24', opendart: '{"date":"2026-09-03","known":[]}' };
      },
    };
    const refresher = new Refresher(store, sources, clock, silent, { progress: board });
    const importer = new Importer(store, clock, silent, board);
    const report = await bulkFirstStart({ store, refresher, importer, plan, sources, logger: silent });

    // fsc runs beside the import (its order against the import's events is not fixed); everything
    // after the cursors runs once the import is done, each bulk-covered source from its cursor.
    const cut = events.indexOf('cursors (sec ok)');
    assert.ok(cut > 0, events.join(' | '));
    assert.deepEqual(new Set(events.slice(0, cut)), new Set(['fsc ingest (cursor none)', 'sec bulk open', 'sec bulk batch']));
    assert.deepEqual(events.slice(cut + 1), [
      'opendart ingest (cursor {"date":"2026-09-03","known":[]})',
      'fsc ingest (cursor 2026-11-24)',
      'sec ingest (cursor 2026-11-24)',
      'polygon ingest (cursor none)',
    ]);
    assert.equal(report.imported.status, 'ok');
    assert.deepEqual(report.before?.sources.map((s) => s.source), ['fsc']);
    // The bar of AAPL was stored: SEC's bulk had placed AAPL before polygon ran.
    assert.deepEqual(report.after?.sources.find((s) => s.source === 'polygon'), { source: 'polygon', ok: true, at: '2026-11-25T10:00:00+09:00', records: 1 });
    const progress = new Map(board.snapshot().map((p) => [p.source, p]));
    assert.deepEqual([...progress.values()].map((p) => [p.source, p.phase]), [['sec', 'done'], ['fsc', 'done'], ['opendart', 'done'], ['polygon', 'done']]);
    // The scripted sources reported 1 of 1 day; done keeps it.
    assert.deepEqual([progress.get('fsc')?.done, progress.get('fsc')?.total, progress.get('fsc')?.unit], [1, 1, 'days']);
  });

  it('hands a source the call count it reported last run (ctx.calls), kept in meta across processes', async () => {
    const clock = () => new Date('2026-11-25T01:00:00Z');
    const seen: unknown[] = [];
    const metered = new Scripted('ecos', [], (ctx) => {
      seen.push(ctx.calls ?? null);
      return { data: {}, cursor: '2026-11-24', calls: { day: '2026-11-25', calls: 17 + seen.length } };
    });
    // Two refreshers, as two processes would be: the count goes through the store.
    await new Refresher(store, [metered], clock, silent).run();
    await new Refresher(store, [metered], clock, silent).run();
    assert.deepEqual(seen, [null, { day: '2026-11-25', calls: 18 }]);
    assert.equal(await store.refresh.getMeta('calls:ecos'), '{"day":"2026-11-25","calls":19}');
  });

  it('records a refresh in which every source failed as failed, each source failed on the board', async () => {
    const clock = () => new Date('2026-11-25T01:00:00Z');
    const board = new ProgressBoard(clock);
    const down = (name: string) => new Scripted(name, [], () => Promise.reject(new Error(`${name}: HTTP 503`)));
    const refresher = new Refresher(store, [down('ecos'), down('customs')], clock, silent, { progress: board });
    const report = await refresher.run();
    assert.deepEqual(report.sources.map((s) => [s.source, s.ok, s.error]), [['ecos', false, 'ecos: HTTP 503'], ['customs', false, 'customs: HTTP 503']]);
    assert.equal((await store.refresh.refreshRuns(1))[0]?.status, 'failed');
    assert.deepEqual(board.snapshot().map((p) => [p.source, p.phase, p.note]), [['ecos', 'failed', 'ecos: HTTP 503'], ['customs', 'failed', 'customs: HTTP 503']]);
  });
});

describe('a first real start serves stocks before the bulk import is done', () => {
  let upstream: Upstream;
  let app: App;
  const tmp = tempDir('first-start-app-');
  let releaseImport: () => void = () => undefined;
  const importGate = new Promise<void>((resolve) => (releaseImport = resolve));

  before(async () => {
    upstream = await startUpstream();
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'silent' });
    // The SEC bulk input waits for the test before it reads: the service must be ready without it.
    const reader = new FactsZipReader('sec', archive(tmp.dir, 'facts.zip', ['AAPL', 'MRVL']));
    const plan: BulkPlan = {
      inputs: [
        {
          source: 'sec',
          open: async (ctx) => {
            ctx.progress({ phase: 'downloading', unit: 'files', done: 0, total: 2, note: 'companyfacts.zip' });
            await importGate;
            return reader;
          },
        },
      ],
      setCursors: async () => ({}),
    };
    app = await startApp(config, {
      clock: () => new Date('2022-06-23T03:00:00Z'),
      logger: silent,
      // A real adapter against the recorded FSC answer of 2022-06-22 (Samsung Electronics).
      sources: [new FscSource({ serviceKey: 'e2eDataGoKrKey', baseUrl: `${upstream.base}/1160100/service/GetStockSecuritiesInfoService`, requestsPerSecond: 0, timeoutMs: 2_000, retries: 0 })],
      bulk: plan,
    });
  });
  after(async () => {
    releaseImport();
    await app.close();
    await upstream.close();
    tmp.cleanup();
  });

  it('is ready with the FSC-placed stock while SEC is still downloading, and takes the import in when it comes', async () => {
    await app.ready;
    const ready = await fetch(`${app.url}/readyz`);
    assert.equal(ready.status, 200);
    // FSC's recorded row: 005930, close 57,600 on 2022-06-22.
    const samsung = app.holder.current?.stock('005930');
    assert.deepEqual([samsung?.security.name, samsung?.price?.date, samsung?.price?.close], ['삼성전자', '2022-06-22', 57_600]);
    // Served with its price before any filing came: its metrics say why they are null.
    assert.deepEqual(samsung?.v3, { ok: false, reason: 'no TTM net income: no quarterly report disclosed' });
    assert.deepEqual([samsung?.snapshot.valuation.per.value, samsung?.snapshot.valuation.per.reason], [null, 'no TTM: no quarterly report disclosed']);
    const sec = app.progress.snapshot().find((p) => p.source === 'sec');
    assert.deepEqual([sec?.phase, sec?.done, sec?.total, sec?.note], ['downloading', 0, 2, 'companyfacts.zip']);
    assert.equal(app.progress.snapshot().find((p) => p.source === 'fsc')?.phase, 'done');

    releaseImport();
    await app.loaded;
    assert.deepEqual((await app.store.market.securities()).map((s) => s.code).sort(), ['005930', 'AAPL', 'MRVL']);
    assert.equal(app.progress.snapshot().find((p) => p.source === 'sec')?.phase, 'done');
    // Runs: the FSC refresh beside the import, the import (ok), then the refresh of every source.
    const runs = await app.store.refresh.refreshRuns(5);
    assert.deepEqual(runs.map((r) => r.status), ['ok', 'ok', 'ok']);
    // The served dataset is the last refresh's, which loaded what the import stored.
    assert.equal(app.holder.current?.stock('AAPL').security.code, 'AAPL');
    // The board is persisted for the CLI's `sources` (flushed at the end of each run).
    assert.deepEqual(JSON.parse((await app.store.refresh.getMeta('progress')) ?? '[]').map((p: { source: string; phase: string }) => [p.source, p.phase]), [['sec', 'done'], ['fsc', 'done']]);
    // No DART key: the dividend backfill is wanted (the bulk files have no dividend section) and nothing is called.
    assert.equal(await app.dividends, null);
    assert.deepEqual(JSON.parse((await app.store.refresh.getMeta('dividend-backfill')) ?? 'null'), { done: false, noData: [], pending: {} });
    assert.deepEqual(upstream.answered.filter((a) => a.path.includes('alotMatter')), []);
  });
});

describe('a first start from the bulk files that did not finish goes on at the next start', () => {
  let upstream: Upstream;
  let app: App;
  const tmp = tempDir('first-start-resume-');

  before(async () => {
    upstream = await startUpstream();
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'silent' });
    // What a first start stopped midway leaves: some records (MRVL, from the SEC bulk) and the
    // mark of an unfinished first start; no claim held (its holder stopped and gave it back).
    const store = await openSqliteStore(join(tmp.dir, 'service.sqlite'));
    await store.market.writeDataset({ securities: [{ market: 'US', code: 'MRVL', name: 'Marvell Technology, Inc.', exchange: 'NASDAQ', sector: 'Unclassified', currency: 'USD', fiscalYearEndMonth: 1, source: 'sec' }] });
    await store.refresh.setMeta('first-start', 'bulk');
    await store.close();
    const reader = new FactsZipReader('sec', archive(tmp.dir, 'facts.zip', ['AAPL', 'MRVL']));
    app = await startApp(config, {
      clock: () => new Date('2022-06-23T03:00:00Z'),
      logger: silent,
      sources: [new FscSource({ serviceKey: 'e2eDataGoKrKey', baseUrl: `${upstream.base}/1160100/service/GetStockSecuritiesInfoService`, requestsPerSecond: 0, timeoutMs: 2_000, retries: 0 })],
      bulk: { inputs: [reader], setCursors: async () => ({}) },
    });
  });
  after(async () => {
    await app.close();
    await upstream.close();
    tmp.cleanup();
  });

  it('serves what is stored at once, runs the first start again, and marks it done', async () => {
    await app.ready;
    await app.loaded;
    assert.deepEqual((await app.store.market.securities()).map((s) => s.code).sort(), ['005930', 'AAPL', 'MRVL']);
    assert.equal(await app.store.refresh.getMeta('first-start'), 'done');
    // The FSC refresh beside the import, the import, the refresh of every source.
    assert.deepEqual((await app.store.refresh.refreshRuns(5)).map((r) => r.status), ['ok', 'ok', 'ok']);
  });
});

describe('after a first start from the bulk files, with a DART key, the dividend backfill', () => {
  let upstream: Upstream;
  let app: App;
  const tmp = tempDir('first-start-dividends-');

  before(async () => {
    upstream = await startUpstream();
    const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'silent' });
    // What the DART bulk files leave (an unfinished first start, resumed): Samsung's FY2021 statements (real), no dividend.
    const store = await openSqliteStore(join(tmp.dir, 'service.sqlite'));
    const fy2021 = parseFinancialStatements(parseDartEnvelope(realJson('opendart/fnlttSinglAcntAll_00126380_2021_11011_CFS.json.gz'))!, { code: '005930', fiscalYear: 2021, fiscalQuarter: 4, periodEnd: '2021-12-31', fsDiv: 'CFS' });
    assert.ok(fy2021);
    await store.market.writeDataset({
      securities: [{ market: 'KR', code: '005930', name: '삼성전자', exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW', fiscalYearEndMonth: 12, source: 'opendart' }],
      reports: [fy2021],
    });
    await store.refresh.setMeta('first-start', 'bulk');
    await store.close();
    const reader = new FactsZipReader('sec', archive(tmp.dir, 'facts.zip', ['AAPL']));
    app = await startApp(config, {
      clock: () => new Date('2022-06-23T03:00:00Z'),
      logger: silent,
      sources: [new OpenDartSource({ apiKey: 'e2eDartKey', baseUrl: upstream.base, requestsPerSecond: 1000, timeoutMs: 2_000, retries: 0 })],
      bulk: { inputs: [reader], setCursors: async () => ({}) },
    });
  });
  after(async () => {
    await app.close();
    await upstream.close();
    tmp.cleanup();
  });

  it('asks the dividend section of the stored filing once, keeps its 013, and shows on the board', async () => {
    await app.loaded;
    const pass = await app.dividends;
    // One filing lacking a dividend (FY2021, asked as bsns_year 2021, reprt_code 11011); the harness answers 013.
    assert.deepEqual([pass?.status, pass?.calls, pass?.figures, pass?.noData], ['done', 1, 0, 1]);
    assert.deepEqual(upstream.answered.filter((a) => a.path === '/api/alotMatter.json').length, 1);
    assert.deepEqual(JSON.parse((await app.store.refresh.getMeta('dividend-backfill')) ?? 'null'), { done: true, noData: ['005930:2021:4'], pending: {} });
    const board = app.progress.snapshot().find((p) => p.source === 'opendart-dividends');
    assert.deepEqual([board?.phase, board?.unit, board?.done, board?.total], ['done', 'reports', 1, 1]);
  });
});
