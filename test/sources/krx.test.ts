import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceHttpError } from '../../src/sources/http.js';
import { mergeFlows, parseMarketDay, parseNetBuying } from '../../src/sources/krx/parse.js';
import { KrxSource, readKrxCursor } from '../../src/sources/krx/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { context, fixture, fixtureJson, loopback } from './helpers.js';

describe('KRX parsers', () => {
  it('reads comma-grouped, signed NETBID_TRDVAL values in won', () => {
    assert.deepEqual(parseNetBuying(fixtureJson('krx/STK_9000_20241120.json')), [
      { code: '000660', name: 'SK하이닉스', netValue: 60_562_646_500 },
      { code: '005930', name: '삼성전자', netValue: -129_506_212_300 },
    ]);
    assert.deepEqual(parseNetBuying({ OutBlock_1: [] }), []);
    assert.equal(parseNetBuying({ error: 'x' }), null);
  });

  it('merges foreign and institution lists; a missing side is zero', () => {
    const f = parseNetBuying(fixtureJson('krx/KSQ_9000_20241120.json')) ?? [];
    assert.deepEqual(mergeFlows('2024-11-20', f, []), [
      { market: 'KR', code: '247540', date: '2024-11-20', foreignNet: 12_491_080_000, institutionNet: 0, source: 'krx' },
    ]);
  });
});

describe('KrxSource against recorded responses', () => {
  it('posts four queries per day and returns one flow per stock', async () => {
    const server = await loopback((req) => {
      const p = new URLSearchParams(req.body);
      assert.equal(p.get('bld'), 'dbms/MDC/STAT/standard/MDCSTAT02401');
      assert.equal(req.headers['cookie'], 'JSESSIONID=abc');
      return { body: fixture(`krx/${p.get('mktId')}_${p.get('invstTpCd')}_${p.get('strtDd')}.json`) };
    });
    try {
      const source = new KrxSource({ baseUrl: server.base, cookie: 'JSESSIONID=abc', requestsPerSecond: 0 });
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: '2024-11-19' }));
      assert.deepEqual(result.data.flows, [
        { market: 'KR', code: '000660', date: '2024-11-20', foreignNet: 60_562_646_500, institutionNet: -30_697_763_500, source: 'krx' },
        { market: 'KR', code: '005930', date: '2024-11-20', foreignNet: -129_506_212_300, institutionNet: 65_136_279_300, source: 'krx' },
        { market: 'KR', code: '247540', date: '2024-11-20', foreignNet: 12_491_080_000, institutionNet: 0, source: 'krx' },
      ]);
      assert.equal(result.cursor, '2024-11-20');
      assert.equal(server.requests.length, 4);
    } finally {
      await server.close();
    }
  });

  it('never asks for a session that has not closed (15:30 in Seoul), a backfill range included', async () => {
    const server = await loopback(() => ({ body: '{"output":[]}' }));
    const days = (): (string | null)[] => [...new Set(server.requests.map((r) => new URLSearchParams(r.body).get('strtDd')))];
    try {
      const source = new KrxSource({ baseUrl: server.base, requestsPerSecond: 0 });
      const range = { from: '2026-11-20', to: '2026-11-23' };
      // Monday 2026-11-23 15:29 in Seoul: Friday is the last closed session.
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:29:00+09:00'), cursor: null, range }));
      assert.deepEqual(days(), ['20261120']);
      server.requests.length = 0;
      await source.ingest(context({ asOf: '2026-11-23', now: new Date('2026-11-23T15:31:00+09:00'), cursor: null, range }));
      assert.deepEqual(days(), ['20261120', '20261123']);
    } finally {
      await server.close();
    }
  });

  it('explains a LOGOUT answer', async () => {
    const server = await loopback(() => ({ body: fixture('krx/logout.txt') }));
    try {
      await assert.rejects(
        new KrxSource({ baseUrl: server.base, requestsPerSecond: 0 }).ingest(context({ cursor: '2024-11-19' })),
        (err: unknown) => err instanceof SourceHttpError && /LOGOUT/.test(err.message) && !/JSESSIONID/.test(err.message),
      );
    } finally {
      await server.close();
    }
  });
});

describe('KRX whole-market prices by date (MDCSTAT01501)', () => {
  // CONSTRUCTED in the format FORMATS.md section 4 documents (no recording of this screen):
  // Samsung's 2024-11-21 figures as FSC's fixture has them, comma-grouped as KRX writes them; a
  // KOSDAQ GLOBAL stock with no trade that day (open/high/low 0); a KONEX row and a `-` row.
  const DAY_1121 = {
    OutBlock_1: [
      { ISU_SRT_CD: '005930', ISU_CD: 'KR7005930003', ISU_ABBRV: '삼성전자', MKT_NM: 'KOSPI', SECT_TP_NM: '', TDD_CLSPRC: '56,400', FLUC_TP_CD: '1', CMPPREVDD_PRC: '1,100', FLUC_RT: '1.99', TDD_OPNPRC: '55,100', TDD_HGPRC: '56,700', TDD_LWPRC: '55,000', ACC_TRDVOL: '18,952,106', ACC_TRDVAL: '1,064,839,547,100', MKTCAP: '336,695,735,820,000', LIST_SHRS: '5,969,782,550', MKT_ID: 'STK' },
      { ISU_SRT_CD: '247540', ISU_CD: 'KR7247540008', ISU_ABBRV: '에코프로비엠', MKT_NM: 'KOSDAQ GLOBAL', SECT_TP_NM: '우량기업부', TDD_CLSPRC: '120,000', FLUC_TP_CD: '3', CMPPREVDD_PRC: '0', FLUC_RT: '0.00', TDD_OPNPRC: '0', TDD_HGPRC: '0', TDD_LWPRC: '0', ACC_TRDVOL: '0', ACC_TRDVAL: '0', MKTCAP: '11,736,000,000,000', LIST_SHRS: '97,800,000', MKT_ID: 'KSQ' },
      { ISU_SRT_CD: '278990', ISU_CD: 'KR7278990001', ISU_ABBRV: 'EMB', MKT_NM: 'KONEX', SECT_TP_NM: '', TDD_CLSPRC: '3,880', FLUC_TP_CD: '3', CMPPREVDD_PRC: '0', FLUC_RT: '0.00', TDD_OPNPRC: '3,880', TDD_HGPRC: '3,880', TDD_LWPRC: '3,880', ACC_TRDVOL: '12', ACC_TRDVAL: '46,560', MKTCAP: '18,986,780,000', LIST_SHRS: '4,893,500', MKT_ID: 'KNX' },
      { ISU_SRT_CD: '000020', ISU_CD: 'KR7000020008', ISU_ABBRV: '동화약품', MKT_NM: 'KOSPI', SECT_TP_NM: '', TDD_CLSPRC: '-', FLUC_TP_CD: '3', CMPPREVDD_PRC: '-', FLUC_RT: '-', TDD_OPNPRC: '-', TDD_HGPRC: '-', TDD_LWPRC: '-', ACC_TRDVOL: '0', ACC_TRDVAL: '0', MKTCAP: '-', LIST_SHRS: '27,931,470', MKT_ID: 'STK' },
    ],
    CURRENT_DATETIME: '2024.11.21 PM 06:10:03',
  };

  it('reads KOSPI and KOSDAQ (GLOBAL) rows, comma-grouped; KONEX and `-` rows left out', () => {
    assert.deepEqual(parseMarketDay(DAY_1121, '2024-11-21')?.map((r) => r.bar), [
      // The same figures FSC's fixture gives for Samsung that day.
      { market: 'KR', code: '005930', date: '2024-11-21', open: 55_100, high: 56_700, low: 55_000, close: 56_400, volume: 18_952_106, tradedValue: 1_064_839_547_100, shares: 5_969_782_550, marketCap: 336_695_735_820_000, source: 'krx' },
      // No trade: open/high/low take the close.
      { market: 'KR', code: '247540', date: '2024-11-21', open: 120_000, high: 120_000, low: 120_000, close: 120_000, volume: 0, tradedValue: 0, shares: 97_800_000, marketCap: 11_736_000_000_000, source: 'krx' },
    ]);
    assert.deepEqual(parseMarketDay(DAY_1121, '2024-11-21')?.map((r) => [r.security.code, r.security.exchange]), [['005930', 'KOSPI'], ['247540', 'KOSDAQ']]);
    assert.equal(parseMarketDay('LOGOUT', '2024-11-21'), null);
  });

  it('with prices on: one call a date, newest first, a bounded number a run; the cursor keeps flows and the price walk', async () => {
    const server = await loopback((req) => {
      const p = new URLSearchParams(req.body);
      if (p.get('bld') === 'dbms/MDC/STAT/standard/MDCSTAT01501') {
        assert.equal(p.get('mktId'), 'ALL');
        return { body: JSON.stringify(p.get('trdDd') === '20241121' ? DAY_1121 : { OutBlock_1: [] }) };
      }
      return { body: '{"output":[]}' };
    });
    try {
      const progress: ProgressPatch[] = [];
      const source = new KrxSource({ baseUrl: server.base, requestsPerSecond: 0, prices: true, historyDays: 14, maxPriceDaysPerRun: 3, firstRunDays: 1 });
      // 2024-11-21 16:00 in Seoul: that session has closed.
      const result = await source.ingest(context({ asOf: '2024-11-21', now: new Date('2024-11-21T16:00:00+09:00'), cursor: null, progress: (p) => void progress.push(p) }));
      const priceDays = server.requests.map((r) => new URLSearchParams(r.body).get('trdDd')).filter((d): d is string => d !== null);
      assert.deepEqual(priceDays, ['20241121', '20241120', '20241119']);
      assert.deepEqual(result.data.bars?.map((b) => [b.code, b.close]), [['005930', 56_400], ['247540', 120_000]]);
      assert.deepEqual(result.data.securities?.map((s) => s.code), ['005930', '247540']);
      // Flows: firstRunDays 1 -> 11-19 and 11-20 (the day before asOf), both done.
      assert.equal(result.cursor, '{"flows":"2024-11-20","prices":{"date":"2024-11-21","back":"2024-11-19","complete":false}}');
      // Window 2024-11-07 .. 11-21: 11 weekdays; 3 walked, the rest next run.
      const start = progress.find((p) => p.note?.startsWith('whole-market prices'));
      assert.deepEqual([start?.phase, start?.unit, start?.done, start?.total], ['calling', 'days', 0, 11]);
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done, progress.at(-1)?.total], ['waiting', 3, 11]);
      assert.deepEqual(readKrxCursor(result.cursor), { flows: '2024-11-20', prices: { latest: '2024-11-21', back: '2024-11-19', complete: false } });
      // A bare date (the cursor before prices) is the flows' date.
      assert.deepEqual(readKrxCursor('2024-11-20'), { flows: '2024-11-20', prices: { latest: null, back: null, complete: false } });
    } finally {
      await server.close();
    }
  });
});
