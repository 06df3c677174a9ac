// A restated figure through both doors (REST and MCP, through Fastify's inject() into the real
// service; the .pg file runs it on PostgreSQL + Redis): a second version of a demo stock's latest
// filing, disclosed later with twice the equity, makes today's snapshot use it and mark the
// figures made of equity `restated: true` with the first-known figure beside them; the figures it
// does not enter carry neither field, and before the second version no figure carries one.
// (The real case, Apple's FY2009 10-K/A: test/serving/report-versions.test.ts.)

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FinancialReport } from '../../src/domain/model.js';
import { startTestApp, TEST_AS_OF, type TestServer } from '../support/server.js';

interface Metric {
  value: number | null;
  disclosedOn: string | null;
  restated?: true;
  firstKnown?: { value: number | null; disclosedOn: string | null };
}
type Snapshot = Record<string, Record<string, Metric>>;

describe('a restated figure', () => {
  let t: TestServer;
  let key: string;
  let code: string;
  let original: FinancialReport;
  let first: Snapshot;
  const rest = async (): Promise<Snapshot> => (await t.get(`${t.url}/api/public/v2/stocks/${code}/snapshot`, key)).body as Snapshot;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    // A KR stock with a PBR: a price and a positive equity.
    const rows = ((await t.get(`${t.url}/api/public/v2/rankings?market=KR&limit=20`, key)).body as { rows: { ticker: string }[] }).rows;
    for (const row of rows) {
      const s = await t.get(`${t.url}/api/public/v2/stocks/${row.ticker}/snapshot`, key);
      if (((s.body as Snapshot).valuation?.pbr?.value ?? null) !== null) {
        code = row.ticker;
        first = s.body as Snapshot;
        break;
      }
    }
    const security = (await t.app.store.market.securities()).find((s) => s.code === code);
    const filings = (await t.app.store.market.reports(security?.id ?? -1)).filter((r) => r.disclosedOn < TEST_AS_OF);
    const latest = filings.reduce((a, b) => (b.fiscalYear * 4 + b.fiscalQuarter > a.fiscalYear * 4 + a.fiscalQuarter ? b : a));
    original = filings.filter((r) => r.fiscalYear === latest.fiscalYear && r.fiscalQuarter === latest.fiscalQuarter && r.consolidated === latest.consolidated).at(-1) as FinancialReport;
    // The second version: the same period and basis, disclosed on the date, equity doubled.
    await t.app.store.market.writeDataset({ reports: [{ ...original, disclosedOn: TEST_AS_OF, equity: (original.equity as number) * 2 }] });
    await t.app.store.refresh.bumpDatasetVersion();
    await t.app.publisher.rebuild();
  });
  after(() => t.close());

  it('before the second version, no figure is marked', () => {
    assert.ok(code, 'a KR stock with a PBR');
    assert.equal(JSON.stringify(first).includes('restated'), false);
    assert.equal(JSON.stringify(first).includes('firstKnown'), false);
    assert.equal(first.valuation?.pbr?.disclosedOn, original.disclosedOn);
  });

  it('REST: the figures made of equity are the second version\'s, restated, the first-known beside them', async () => {
    const now = await rest();
    // PBR = market cap / equity and ROE = TTM NI x 100 / equity: halved (exactly: a division by twice a double).
    for (const [group, metric] of [['valuation', 'pbr'], ['profitability', 'roe']] as const) {
      const was = first[group]?.[metric] as Metric;
      const is = now[group]?.[metric] as Metric;
      assert.equal(is.value, (was.value as number) / 2, `${group}.${metric}`);
      assert.equal(is.restated, true);
      assert.deepEqual(is.firstKnown, { value: was.value, disclosedOn: was.disclosedOn });
    }
    assert.equal(now.valuation?.pbr?.disclosedOn, TEST_AS_OF);
    // Not made of equity: as it was, without either field.
    for (const [group, metric] of [['stability', 'currentRatio'], ['profitability', 'operatingMargin'], ['valuation', 'per']] as const) {
      const is = now[group]?.[metric] as Metric;
      assert.equal('restated' in is || 'firstKnown' in is, false, `${group}.${metric}`);
      assert.equal(is.value, first[group]?.[metric]?.value);
    }
  });

  it('MCP: the same figures in the structured content', async () => {
    const res = await t.fetch(`${t.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_stock_snapshot', arguments: { code } } }),
    });
    const body = (await res.json()) as { result: { isError?: boolean; structuredContent: Snapshot } };
    assert.equal(body.result.isError, undefined);
    const viaRest = await rest();
    assert.deepEqual(body.result.structuredContent.valuation?.pbr, viaRest.valuation?.pbr);
    assert.deepEqual(body.result.structuredContent.profitability?.roe, viaRest.profitability?.roe);
    assert.equal(body.result.structuredContent.valuation?.pbr?.restated, true);
  });
});
