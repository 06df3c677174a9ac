// End to end on a REAL foreign private issuer: TSMC (20-F, IFRS, TWD; an excerpt of its recorded
// companyfacts, test/fixtures/real/PROVENANCE.md) served by the loopback upstream at SEC's paths,
// the real service refreshed once through the real pipeline on 2021-06-30 (Seoul), and its
// snapshot read through both doors (REST and MCP over real HTTP). Every expected value is derived
// by hand from the raw facts beside it; nothing here calls the project's calculation code.
//
// Rules (docs/calculations.md, "Foreign private issuers"): each 20-F's figures are in USD at the
// rate its own convenience translation implies (its USD figure over its TWD figure for the same
// item: Revenue); the year before it, from the same 20-F, at the same rate, so growth is in TWD.
// TSMC files yearly: the TTM is the fiscal year 2020 (20-F filed 2021-04-16). Shares are ADSs
// (5 common shares each). No price is recorded for TSM, so the price-based metrics are null.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DUMMY, startScenario, type Scenario } from './scenario.js';

const REL = 1e-9;
const near = (actual: unknown, expected: number, what: string): void => {
  assert.equal(typeof actual, 'number', `${what}: ${String(actual)}`);
  assert.ok(Math.abs((actual as number) - expected) <= Math.abs(expected) * REL, `${what}: ${String(actual)} != ${expected}`);
};

// 20-F 0001193125-21-118512 (filed 2021-04-16), ifrs-full, TWD million (USD million where said):
//   Revenue 2020 1,339,254.8 (USD 47,694.3), 2019 1,069,985.4
//   ProfitLossFromOperatingActivities 2020 566,783.7, 2019 372,701.1
//   ProfitLossAttributableToOwnersOfParent 2020 510,744.0, 2019 353,948.0
// Rate = 47,694.3 / 1,339,254.8 = 0.035612566032990886 USD a TWD (NT$28.08 a US$).
const RATE = 47_694.3 / 1_339_254.8;
const REF = { referenceQuarter: '2020Q4', disclosedOn: '2021-04-16' };

describe('TSMC (TSM, a 20-F filer reporting in TWD) on 2021-06-30 through both doors', () => {
  let s: Scenario;
  let rest: Record<string, unknown>;
  before(async () => {
    s = await startScenario({
      at: '2021-06-30T03:00:00Z',
      env: (base) => ({ SEC_USER_AGENT: DUMMY.secUserAgent, SEC_BASE_URL: base, SEC_DATA_BASE_URL: base, SEC_TICKERS: 'TSM', ECB_BASE_URL: base }),
    });
    const res = await s.get('/stocks/TSM/snapshot');
    assert.equal(res.status, 200, `snapshot: ${JSON.stringify(res.body)}`);
    rest = res.body as Record<string, unknown>;
  });
  after(async () => {
    await s?.close();
  });

  it('refreshes from the loopback upstream and asks for nothing unrecorded', () => {
    assert.deepEqual(
      s.app.refresher.sourceStatus.map((x) => [x.source, x.ok, x.error ?? '']),
      [['ecb', true, ''], ['sec', true, '']],
    );
    assert.deepEqual(s.upstream.unanswered, []);
  });

  it('serves TSM (not a 404) in USD, with how its figures were made', () => {
    assert.deepEqual([rest['code'], rest['market'], rest['currency'], rest['name'], rest['price']], ['TSM', 'US', 'USD', 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD', null]);
    const filer = rest['filer'] as { conversion: { usdPerUnit: number; disclosedOn: string; source: string }; ads: { ordinaryPerAds: number; source: string } } & Record<string, unknown>;
    assert.equal(filer['annualForm'], '20-F');
    assert.equal(filer['reportingCurrency'], 'TWD');
    near(filer.conversion.usdPerUnit, RATE, 'conversion rate');
    assert.equal(filer.conversion.disclosedOn, '2021-04-16');
    assert.match(filer.conversion.source, /convenience translation in its filing of 2021-04-16/);
    assert.equal(filer['ttmBasis'], 'fiscal year 2020 as filed on 20-F (no interim flow figures among its XBRL facts: the latest fiscal year)');
    assert.equal(filer.ads.ordinaryPerAds, 5);
    assert.match(filer.ads.source, /20-F cover page/);
  });

  it('figures derived by hand: margins, growth in TWD, EPS per ADS', () => {
    type Metric = { value: number | null; reason?: string; unit: string; referenceQuarter: string | null; disclosedOn: string | null };
    const g = (group: string, key: string): Metric => (rest[group] as Record<string, Metric>)[key] as Metric;
    // Operating margin = 566,783.7 / 1,339,254.8 x 100 = 42.32082647753064 (the rate cancels).
    near(g('profitability', 'operatingMargin').value, 42.32082647753064, 'operatingMargin');
    assert.deepEqual([g('profitability', 'operatingMargin').referenceQuarter, g('profitability', 'operatingMargin').disclosedOn], [REF.referenceQuarter, REF.disclosedOn]);
    // Revenue YoY in TWD = (1,339,254.8 - 1,069,985.4) / 1,069,985.4 x 100 = 25.165707868537275; both years from the
    // 2021 filing at one rate. (From the convenience USD figures, 47,694.3 over 2019's 35,773.5, it would be 33.32.)
    near(g('growth', 'revenueYoy').value, 25.165707868537275, 'revenueYoy');
    // EPS YoY (per ADS, 25,930,380,458 / 5 ADSs both years) = (510,744.0 - 353,948.0) / 353,948.0 x 100 = 44.29916258885486.
    near(g('growth', 'epsYoy').value, 44.29916258885486, 'epsYoy');
    // No price recorded for TSM: valuation needs one.
    assert.equal(g('valuation', 'per').value, null);
    assert.equal(g('valuation', 'per').reason, 'no price on or before the date');
    // The excerpt holds no balance sheet: ROE says equity is not reported.
    assert.equal(g('profitability', 'roe').reason, 'equity not reported for 2020Q4');
    assert.equal(g('cashGeneration', 'operatingCashFlow').reason, 'TTM operating cash flow not reported');
  });

  it('the percentile entries carry the raw values: net margin, operating income YoY', async () => {
    const res = await s.get('/stocks/TSM/percentile?cohort=market');
    assert.equal(res.status, 200);
    const metrics = (res.body as { metrics: { metric: string; value: number | null }[] }).metrics;
    // Net margin = 510,744.0 / 1,339,254.8 x 100 = 38.13643229055442.
    near(metrics.find((m) => m.metric === 'netMargin')?.value, 38.13643229055442, 'netMargin');
    // Operating income YoY = (566,783.7 - 372,701.1) / 372,701.1 x 100 = 52.074598116292115.
    near(metrics.find((m) => m.metric === 'operatingIncomeYoy')?.value, 52.074598116292115, 'operatingIncomeYoy');
  });

  it('MCP: get_stock_snapshot answers the REST body, the filer note included', async () => {
    const client = new Client({ name: 'foreign-filers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.app.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.key}` } } }));
    try {
      const result = await client.callTool({ name: 'get_stock_snapshot', arguments: { code: 'TSM' } });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.deepEqual(result.structuredContent, rest);
    } finally {
      await client.close();
    }
  });
});

// A foreign filer WITHOUT a USD convenience translation: the CONSTRUCTED EUR 20-F filer of
// ./constructed-foreign.ts (no such filer's companyfacts is recorded), listed by the upstream as
// EURX, converted at the REAL ECB reference rates the upstream serves (the recorded excerpt of
// eurofxref-hist.csv, test/fixtures/real/ecb). The service refreshes once on 2024-04-15 (Seoul):
// the ECB source first (it stores the rates up to that day), then SEC, which converts at them.
//
// 20-F filed 2024-03-01 (EUR million): Revenue FY2023 24,000, FY2022 20,000; operating profit 5,000
// and 4,000; net income attributable 3,600; equity 25,000 at 2023-12-31.
// Flows at the average of 2023's daily rates: the 255 USD-per-EUR figures of 2023 in the fixture sum
// to 275.7235 (awk -F, '$1>="2023-01-01" && $1<="2023-12-31"{s+=$2}'), 275.7235 / 255 = 1.0812686274509804.
// Balances at the rate of the period end: 2023-12-31 is a Sunday, the last rate on or before it is
// 2023-12-29's, USD 1.105.
const EUR_FY2023 = 275.7235 / 255;

describe('EURX (a 20-F filer in EUR without a USD translation) on 2024-04-15 through both doors', () => {
  let s: Scenario;
  let rest: Record<string, unknown>;
  before(async () => {
    s = await startScenario({
      at: '2024-04-15T03:00:00Z',
      env: (base) => ({ SEC_USER_AGENT: DUMMY.secUserAgent, SEC_BASE_URL: base, SEC_DATA_BASE_URL: base, SEC_TICKERS: 'EURX', ECB_BASE_URL: base }),
      faults: { euroFiler: true },
    });
    const res = await s.get('/stocks/EURX/snapshot');
    assert.equal(res.status, 200, `snapshot: ${JSON.stringify(res.body)}`);
    rest = res.body as Record<string, unknown>;
  });
  after(async () => {
    await s?.close();
  });

  it('refreshes the ECB rates, then SEC, from the loopback upstream', () => {
    assert.deepEqual(
      s.app.refresher.sourceStatus.map((x) => [x.source, x.ok, x.error ?? '']),
      [['ecb', true, ''], ['sec', true, '']],
    );
    assert.deepEqual(s.upstream.unanswered, []);
  });

  it('the filer block says which rate and from where: the ECB average of the period for flows, the rate at period end for balances', () => {
    assert.deepEqual(rest['filer'], {
      annualForm: '20-F',
      reportingCurrency: 'EUR',
      conversion: {
        usdPerUnit: EUR_FY2023,
        balanceUsdPerUnit: 1.105,
        flowRate: 'ECB reference rate, average of the period 2023-01-01 to 2023-12-31 (255 days published)',
        balanceRate: 'ECB reference rate at period end (2023-12-29, the last published on or before 2023-12-31)',
        disclosedOn: '2024-03-01',
        source:
          "ECB euro foreign exchange reference rates (www.ecb.europa.eu, eurofxref), USD per EUR of each day: flows (income, cash flow, per share) at the average of the period's daily rates, balances at the rate of the period end; the year before it in the filing of 2024-03-01 at the same rates, so growth is in EUR",
      },
      ttmBasis: 'fiscal year 2023 as filed on 20-F (no interim flow figures among its XBRL facts: the latest fiscal year)',
      ads: null,
    });
  });

  it('figures derived by hand: growth and margins in EUR terms, ROE across the two rates', () => {
    type Metric = { value: number | null; referenceQuarter: string | null; disclosedOn: string | null };
    const g = (group: string, key: string): Metric => (rest[group] as Record<string, Metric>)[key] as Metric;
    // Revenue YoY = (24,000 - 20,000) / 20,000 x 100 = 20 (both years from the 20-F at its one flow rate).
    near(g('growth', 'revenueYoy').value, 20, 'revenueYoy');
    // Operating margin = 5,000 / 24,000 x 100 = 20.833333333333336 (flows of one filing: the rate cancels).
    near(g('profitability', 'operatingMargin').value, 20.833333333333336, 'operatingMargin');
    assert.deepEqual([g('profitability', 'operatingMargin').referenceQuarter, g('profitability', 'operatingMargin').disclosedOn], ['2023Q4', '2024-03-01']);
    // ROE = TTM net income / equity = 3,600 x 1.0812686274509804 / (25,000 x 1.105) x 100 = 14.090740484429066:
    // a flow at the year's average over a balance at its end (in EUR terms it would be 3,600 / 25,000 = 14.4).
    near(g('profitability', 'roe').value, 14.090740484429066, 'roe');
  });

  it('MCP: get_stock_snapshot answers the REST body, the filer block included', async () => {
    const client = new Client({ name: 'foreign-filers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.app.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.key}` } } }));
    try {
      const result = await client.callTool({ name: 'get_stock_snapshot', arguments: { code: 'EURX' } });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.deepEqual(result.structuredContent, rest);
    } finally {
      await client.close();
    }
  });
});
