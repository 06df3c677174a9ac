// The dividend backfill after a first start from the bulk files (src/refresh/dividends.ts), on
// real SQLite and PostgreSQL, against a loopback OpenDART: the stored KR filings lacking a
// dividend are asked newest first (latest annual, latest quarter, then older); the day's
// allowance less the reserve is never passed (counted by the server and by the meter, across a
// restart); 013 answers are kept and never asked again; a stop between two calls and a restart
// ask nothing twice; and the figures are served afterwards (Samsung Electronics' FY2021 1,444 won
// over the 2022-06-22 close of 57,600: 2.5069 %).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { FinancialReport, FiscalQuarter, Security } from '../../src/domain/model.js';
import { DIVIDEND_BACKFILL, DIVIDEND_PROGRESS, DividendBackfill, orderGaps, readDividendState, wantDividendBackfill } from '../../src/refresh/dividends.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import { DatasetHolder } from '../../src/serving/holder.js';
import { Publisher } from '../../src/serving/publisher.js';
import type { SnapshotDataset } from '../../src/serving/served.js';
import { parseDartEnvelope, parseFinancialStatements } from '../../src/sources/opendart/parse.js';
import { OpenDartSource } from '../../src/sources/opendart/source.js';
import type { KyselyStore } from '../../src/store/store.js';
import { loopback, zipOne, type Loopback, type Reply } from '../sources/helpers.js';
import { realJson } from '../e2e/upstream.js';
import { STORE_PLACES } from '../support/stores.js';

const silent = pino({ level: 'silent' });
const SAMSUNG = '00126380';
const OTHER = '90000001';

/** Samsung Electronics' real annual statements (consolidated), as the bulk files bring them: no dividend. */
const samsungAnnual = (year: number): FinancialReport => {
  const report = parseFinancialStatements(parseDartEnvelope(realJson(`opendart/fnlttSinglAcntAll_${SAMSUNG}_${year}_11011_CFS.json.gz`))!, {
    code: '005930', fiscalYear: year, fiscalQuarter: 4, periodEnd: `${year}-12-31`, fsDiv: 'CFS',
  });
  assert.ok(report);
  return report;
};

/** A filing with no figure at all (a quarter the test needs only as a period to ask). */
const blank = (code: string, fiscalYear: number, fiscalQuarter: FiscalQuarter, periodEnd: string, disclosedOn: string): FinancialReport => {
  const nulls = Object.fromEntries(Object.keys(samsungAnnual(2021)).map((k) => [k, null]));
  return { ...(nulls as unknown as FinancialReport), market: 'KR', code, fiscalYear, fiscalQuarter, periodEnd, disclosedOn, consolidated: true, source: 'opendart' };
};

const security = (code: string, name: string, fiscalYearEndMonth = 12): Security => ({
  market: 'KR', code, name, nameEn: null, exchange: 'KOSPI', sector: 'Semiconductors', currency: 'KRW', fiscalYearEndMonth, source: 'opendart',
});

/**
 * alotMatter.json answers, CONSTRUCTED in the recorded answer's shape (Samsung's 2020 Q1 dividend
 * section, test/fixtures/real/opendart/alotMatter_00126380_2020_11013.json: every row and field
 * kept) with the common and preferred share's 주당 현금배당금(원) `thstrm` set to the figure below.
 * Samsung's figures as filed (no recording of these reports' dividend sections): FY2021 1,444 won
 * (361 a quarter: 361, 722, 1,083 year to date), FY2020 2,994 (1,416 regular + 1,578 special).
 * Company 90000001 (invented): its FY2021 report answers 013, its 2021 Q3 report states `-`.
 */
const DIVIDENDS: Record<string, string | null> = {
  [`${SAMSUNG}:2021:11011`]: '1,444',
  [`${SAMSUNG}:2021:11014`]: '1,083',
  [`${SAMSUNG}:2021:11012`]: '722',
  [`${SAMSUNG}:2021:11013`]: '361',
  [`${SAMSUNG}:2020:11011`]: '2,994',
  [`${OTHER}:2021:11011`]: null,
  [`${OTHER}:2021:11014`]: '-',
};

function alotMatter(key: string): Reply {
  const figure = DIVIDENDS[key];
  if (figure === undefined || figure === null) return json({ status: '013', message: '조회된 데이타가 없습니다.' });
  const recorded = realJson<{ list: Record<string, string>[] }>(`opendart/alotMatter_${SAMSUNG}_2020_11013.json`);
  const list = recorded.list.map((r) => (r['se'] === '주당 현금배당금(원)' ? { ...r, corp_code: key.split(':')[0] as string, thstrm: figure } : r));
  return json({ status: '000', message: '정상', list });
}

const json = (body: unknown): Reply => ({ headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });

/**
 * CONSTRUCTED corpCode.xml (the documented ZIP holding CORPCODE.xml): Samsung's corp_code and
 * stock code as its recorded company.json gives them, and the invented 90000001 as 100001.
 * 200002 and 300003 are not in it.
 */
const CORP_XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<result>\n' +
  `<list>\n<corp_code>${SAMSUNG}</corp_code>\n<corp_name>삼성전자</corp_name>\n<corp_eng_name>SAMSUNG ELECTRONICS CO,.LTD</corp_eng_name>\n<stock_code>005930</stock_code>\n<modify_date>20240101</modify_date>\n</list>\n` +
  `<list>\n<corp_code>${OTHER}</corp_code>\n<corp_name>시험전자</corp_name>\n<corp_eng_name>TEST</corp_eng_name>\n<stock_code>100001</stock_code>\n<modify_date>20240101</modify_date>\n</list>\n` +
  '</result>\n';

describe('the order of the periods asked', () => {
  it('every company\'s latest annual report, then its latest quarter, then that quarter a year before, then the rest by period end (newest first), ties by code', () => {
    const g = (code: string, fiscalYear: number, fiscalQuarter: FiscalQuarter, periodEnd: string, tier: 0 | 1 | 2 | 3) => ({ key: `${code}:${fiscalYear}:${fiscalQuarter}`, tier, securityId: 1, code, fiscalYear, fiscalQuarter, periodEnd });
    const gaps = [
      g('005930', 2020, 4, '2020-12-31', 3), g('005930', 2021, 2, '2021-06-30', 3), g('005930', 2021, 1, '2021-03-31', 2), g('100001', 2021, 3, '2021-09-30', 1),
      g('005930', 2021, 4, '2021-12-31', 0), g('005930', 2022, 1, '2022-03-31', 1), g('100001', 2020, 4, '2020-12-31', 0),
    ];
    assert.deepEqual(orderGaps(gaps).map((x) => x.key), ['005930:2021:4', '100001:2020:4', '005930:2022:1', '100001:2021:3', '005930:2021:1', '005930:2021:2', '005930:2020:4']);
  });
});

for (const place of STORE_PLACES.filter((p) => p.name !== 'SQLite with a reader thread')) {
  describe(`the dividend backfill on ${place.name}`, { skip: place.skip }, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    let upstream: Loopback;
    // 10:00 in Seoul on 2022-06-23, the day after the close used below.
    let now = new Date('2022-06-23T01:00:00Z');
    const clock = () => now;
    const asked = (): string[] => upstream.requests.filter((r) => r.url.pathname === '/api/alotMatter.json').map((r) => `${r.url.searchParams.get('corp_code')}:${r.url.searchParams.get('bsns_year')}:${r.url.searchParams.get('reprt_code')}`);
    const corpCalls = (): number => upstream.requests.filter((r) => r.url.pathname === '/api/corpCode.xml').length;
    // A restart is a new adapter (its meter empty: it takes the count in meta) and a new walk.
    const backfill = (board = new ProgressBoard(clock)) => {
      const source = new OpenDartSource({ apiKey: 'test-key-0000', baseUrl: upstream.base, dailyAllowance: 7, requestsPerSecond: 1000, clock });
      return { board, source, walk: new DividendBackfill({ store, source, clock, logger: silent, board, reserve: 2, saveEvery: 2, publishEverySeconds: 3600 }) };
    };
    const stateOf = async () => readDividendState(await store.refresh.getMeta(DIVIDEND_BACKFILL));
    const dividendsOf = async (code: string): Promise<Record<string, number | null>> => {
      const id = (await store.market.securities()).find((s) => s.code === code)?.id;
      return Object.fromEntries((await store.market.reports(id)).map((r) => [`${r.fiscalYear}:${r.fiscalQuarter}`, r.dividendPerShare]));
    };

    before(async () => {
      ({ store, cleanup } = await place.open());
      upstream = await loopback((req) => {
        if (req.url.pathname === '/api/corpCode.xml') return { headers: { 'content-type': 'application/x-msdownload' }, body: zipOne('CORPCODE.xml', CORP_XML) };
        if (req.url.pathname === '/api/alotMatter.json') {
          const q = req.url.searchParams;
          return alotMatter(`${q.get('corp_code')}:${q.get('bsns_year')}:${q.get('reprt_code')}`);
        }
        return { status: 404, body: 'not here' };
      });
      // What a first start from the bulk files leaves: statements without dividends.
      await store.market.writeDataset({
        securities: [security('005930', '삼성전자'), security('100001', '시험전자'), security('200002', '목록없음'), security('300003', '삼월결산', 3)],
        reports: [
          samsungAnnual(2020),
          samsungAnnual(2021),
          blank('005930', 2021, 1, '2021-03-31', '2021-05-17'),
          blank('005930', 2021, 2, '2021-06-30', '2021-08-17'),
          blank('005930', 2021, 3, '2021-09-30', '2021-11-15'),
          blank('100001', 2021, 4, '2021-12-31', '2022-03-21'),
          blank('100001', 2021, 3, '2021-09-30', '2021-11-15'),
          blank('200002', 2021, 4, '2021-12-31', '2022-03-21'),
          blank('300003', 2022, 4, '2022-03-31', '2022-06-20'),
        ],
        bars: [{ market: 'KR', code: '005930', date: '2022-06-22', open: 58_000, high: 58_400, low: 57_600, close: 57_600, volume: 1, tradedValue: 57_600, shares: 5_969_782_550, marketCap: 343_859_474_880_000, source: 'fsc' }],
      });
      await wantDividendBackfill(store.refresh);
    });

    after(async () => {
      await upstream?.close();
      await cleanup?.();
    });

    it('day one: the newest reports until the allowance is down to the reserve (7 - 2: corpCode.xml and four alotMatter.json)', async () => {
      const { walk, board } = backfill();
      const pass = await walk.run();
      // Order: 005930 FY2021, 100001 FY2021, 200002 FY2021 (no corp_code: not asked), 005930 2021 Q3, 100001 2021 Q3;
      // then 5 of the 7 calls are made and 2 are left: paced.
      assert.deepEqual(asked(), [`${SAMSUNG}:2021:11011`, `${OTHER}:2021:11011`, `${SAMSUNG}:2021:11014`, `${OTHER}:2021:11014`]);
      assert.equal(corpCalls(), 1);
      assert.deepEqual({ status: pass.status, calls: pass.calls, figures: pass.figures, noData: pass.noData, unaskable: pass.unaskable, left: pass.left, written: pass.written },
        { status: 'paced', calls: 4, figures: 3, noData: 1, unaskable: 1, left: 3, written: 3 });
      // The renewal: the next Seoul midnight, 2022-06-24 00:00 KST.
      assert.equal(pass.nextTryAt?.toISOString(), '2022-06-23T15:00:00.000Z');
      assert.equal(JSON.parse((await store.refresh.getMeta('calls:opendart')) as string).calls, 5);
      const progress = board.snapshot().find((p) => p.source === DIVIDEND_PROGRESS);
      assert.deepEqual([progress?.phase, progress?.done, progress?.total, progress?.callsToday, progress?.dailyAllowance], ['paced', 5, 8, 5, 7]);
      // 8 periods to ask: Samsung's five, 100001's two, 200002's one (300003's March year is not asked).
      // "1,444" and "1,083" for Samsung; "-" for 100001's Q3: a declared none, 0; its FY2021 answered 013: kept in meta.
      assert.deepEqual(await dividendsOf('005930'), { '2020:4': null, '2021:1': null, '2021:2': null, '2021:3': 1_083, '2021:4': 1_444 });
      assert.deepEqual(await dividendsOf('100001'), { '2021:3': 0, '2021:4': null });
      assert.deepEqual(await stateOf(), { done: false, noData: ['100001:2021:4'], pending: {} });
      assert.equal(pass.versions.length, 1, 'a dataset version published for the figures');
    });

    it('a restart the same day asks nothing: the count in meta says the allowance is down to the reserve', async () => {
      const pass = await backfill().walk.run();
      assert.equal(pass.status, 'paced');
      assert.equal(asked().length, 4);
      assert.equal(corpCalls(), 1);
    });

    it('the next day: stopped between two calls, then restarted, it asks each remaining report once and none answered before', async () => {
      now = new Date('2022-06-24T01:00:00Z');
      const board = new ProgressBoard(clock);
      const stop = new AbortController();
      // The stop comes after the first report of the day is answered (the board hears of each step):
      // the second step, after 200002's FY2021 (a company's latest annual first; no corp_code, no call).
      board.subscribe((p) => {
        if (p.source === DIVIDEND_PROGRESS && p.phase === 'calling' && p.done >= 2) stop.abort();
      });
      const stopped = await backfill(board).walk.run(stop.signal);
      assert.equal(stopped.status, 'stopped');
      assert.deepEqual(asked().slice(4), [`${SAMSUNG}:2021:11012`]);
      // Saved on the stop: Samsung's half-year 722.
      assert.equal((await dividendsOf('005930'))['2021:2'], 722);

      const resumed = await backfill().walk.run();
      assert.equal(resumed.status, 'done');
      assert.deepEqual(asked().slice(5), [`${SAMSUNG}:2021:11013`, `${SAMSUNG}:2020:11011`]);
      // Every report asked once; 100001's FY2021 (013) never again.
      assert.equal(new Set(asked()).size, asked().length);
      assert.equal(asked().length, 7);
      // Day two: corpCode.xml twice (one per pass) and three alotMatter.json: 5 of 7.
      assert.equal(JSON.parse((await store.refresh.getMeta('calls:opendart')) as string).calls, 5);
      assert.deepEqual(await dividendsOf('005930'), { '2020:4': 2_994, '2021:1': 361, '2021:2': 722, '2021:3': 1_083, '2021:4': 1_444 });
      assert.deepEqual(await stateOf(), { done: true, noData: ['100001:2021:4'], pending: {} });
      const again = await backfill().walk.run();
      assert.equal(again.status, 'done');
      assert.equal(upstream.requests.length, 10, 'a finished backfill calls nothing, not even corpCode.xml');
    });

    it('a figure saved in meta but not yet written (a process killed between the two writes) is written at the restart, not asked again', async () => {
      // Still 2022-06-24 in Seoul.
      await store.market.writeDataset({ reports: [blank('005930', 2022, 1, '2022-03-31', '2022-05-16')] });
      // CONSTRUCTED state: Samsung's 2022 Q1 report answered 361 (as filed), the process gone before the filing's write.
      await store.refresh.setMeta(DIVIDEND_BACKFILL, JSON.stringify({ done: false, noData: ['100001:2021:4'], pending: { '005930:2022:1': 361 } }));
      const before = upstream.requests.length;
      const pass = await backfill().walk.run();
      // Written first; then the one filing left, 200002's (no corp_code), waits for the next day's
      // corpCode.xml: the day's count (5 of 7) is at the reserve.
      assert.deepEqual([pass.status, pass.written, pass.calls], ['paced', 1, 0]);
      assert.equal(upstream.requests.length, before);
      assert.equal((await dividendsOf('005930'))['2022:1'], 361);
      assert.deepEqual(await stateOf(), { done: false, noData: ['100001:2021:4'], pending: {} });
    });

    it('serves the figures: Samsung\'s FY2021 1,444 won, 2.5069 % of the 2022-06-22 close', async () => {
      const holder = new DatasetHolder<SnapshotDataset>();
      await new Publisher(store, holder, clock, silent, { sourceLabel: 'opendart' }).rebuild();
      const { perShare } = holder.current!.stock('005930').snapshot;
      // TTM at FY2021 = the annual report's year to date, 1,444; the last fiscal year the same report.
      // Yield = 1,444 x 100 / 57,600 = 2.50694444...% (the double 2.5069444444444446).
      assert.equal(perShare.dividendPerShare.value, 1_444);
      assert.equal(perShare.dividendPerShareFy.value, 1_444);
      assert.equal(perShare.dividendYield.value, 2.5069444444444446);
    });
  });
}
