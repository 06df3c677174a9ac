// An end-to-end refresh through real adapters (ECOS and Korea Customs) against a loopback
// server that serves their recorded responses, then a 500, a hang past the timeout, a
// malformed body and a rate limit: the previous data stays served and each failure is reported.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import pino from 'pino';
import { Refresher } from '../../src/refresh/pipeline.js';
import { CustomsSource } from '../../src/sources/customs/source.js';
import { EcosSource } from '../../src/sources/ecos/source.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { DatasetHolder } from '../../src/serving/holder.js';
import { Publisher } from '../../src/serving/publisher.js';
import type { SnapshotDataset } from '../../src/serving/served.js';
import { fixture, loopback, type Loopback } from '../sources/helpers.js';
import { tempDir } from '../support/tmp.js';

type Fault = 'none' | '500' | 'hang' | 'malformed' | '429';

const ECOS_KEY = 'ECOSKEY1234567890ABCD';
const CUSTOMS_KEY = 'customsKey1234567890';
const EMPTY_CUSTOMS = '<response><header><resultCode>00</resultCode><resultMsg>정상서비스.</resultMsg></header><body><items></items><totalCount>0</totalCount></body></response>';

describe('refresh through real adapters against recorded responses', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let server: Loopback;
  let fault: Fault = 'none';
  let refresher: Refresher;
  const holder = new DatasetHolder<SnapshotDataset>();

  before(async () => {
    server = await loopback((req) => {
      if (req.url.pathname.startsWith('/api/StatisticSearch/')) {
        if (fault === '500') return { status: 500, body: 'Internal Server Error' };
        if (fault === 'hang') return { hang: true };
        if (fault === 'malformed') return { body: '{"StatisticSearch":{"list_total_count":5,"row":[{"TIME":' };
        if (fault === '429') return { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' };
        return { body: fixture('ecos/usdkrw_20241118_20241122.json') };
      }
      if (req.url.pathname.endsWith('/Newtrade/getNewtradeList')) return { body: fixture('customs/newtrade_2024.xml') };
      if (req.url.searchParams.get('strtYymm') === '202403') return { body: fixture('customs/itemtrade_202403.xml') };
      return { body: EMPTY_CUSTOMS };
    });
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    // Where earlier runs left off: only a few requests are needed per run.
    await store.refresh.setMeta('cursor:ecos', '2024-11-17');
    await store.refresh.setMeta('cursor:customs', '2024-02');
    const sources = [
      new EcosSource({ apiKey: ECOS_KEY, baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 300, retries: 1, backoffMs: 10 }),
      new CustomsSource({ serviceKey: CUSTOMS_KEY, baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 300, retries: 1, backoffMs: 10 }),
    ];
    const clock = () => new Date('2024-11-22T03:00:00Z');
    // The writer, and the publisher that serves each version it publishes, as in the service.
    const publisher = new Publisher(store, holder, clock, pino({ level: 'silent' }), { sourceLabel: 'ecos,customs' });
    refresher = new Refresher(store, sources, clock, pino({ level: 'silent' }), { onPublish: (v, s) => publisher.publish(v, s) });
  });
  after(async () => {
    await server.close();
    await store.close();
    tmp.cleanup();
  });

  it('ingests, stores and serves what the adapters parsed', async () => {
    const report = await refresher.run();
    assert.deepEqual(report.sources.map((s) => [s.source, s.ok]), [['ecos', true], ['customs', true]]);
    assert.deepEqual((await store.market.fx()).map((r) => [r.date, r.usdKrw]), [
      ['2024-11-18', 1396.3],
      ['2024-11-19', 1394.9],
      ['2024-11-20', 1395.5],
      ['2024-11-21', 1398],
    ]);
    assert.ok((await store.market.trade()).length >= 3);
    assert.ok((await store.market.sectorExports()).some((r) => r.sector === 'Semiconductors' && r.month === '2024-03'));
    assert.equal(await store.refresh.getMeta('cursor:ecos'), '2024-11-21');
    assert.equal(holder.current?.source, 'ecos,customs');
    assert.ok(holder.current?.trade().some((m) => m.month === '2024-03'));
  });

  for (const f of ['500', 'hang', 'malformed', '429'] as const) {
    it(`a ${f} from one source keeps its previous data served and reports the failure`, async () => {
      const fxBefore = await store.market.fx();
      const cursorBefore = await store.refresh.getMeta('cursor:ecos');
      fault = f;
      try {
        const report = await refresher.run();
        const ecos = report.sources.find((s) => s.source === 'ecos');
        const customs = report.sources.find((s) => s.source === 'customs');
        assert.equal(ecos?.ok, false);
        assert.ok(ecos?.error && !ecos.error.includes(ECOS_KEY), `the error is reported without the key: ${ecos?.error}`);
        assert.equal(customs?.ok, true, 'the other source still refreshed');
        assert.deepEqual(await store.market.fx(), fxBefore, 'nothing half-written');
        assert.equal(await store.refresh.getMeta('cursor:ecos'), cursorBefore, 'the cursor did not move');
        assert.deepEqual(holder.current?.sources.find((s) => s.source === 'ecos')?.ok, false, 'health and readyz show it');
        const [last] = await store.refresh.refreshRuns(1);
        assert.equal(last?.status, 'partial');
      } finally {
        fault = 'none';
      }
    });
  }
});
