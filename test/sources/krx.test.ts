import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceHttpError } from '../../src/sources/http.js';
import { mergeFlows, parseNetBuying } from '../../src/sources/krx/parse.js';
import { KrxSource } from '../../src/sources/krx/source.js';
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
