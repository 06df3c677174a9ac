// A delisted company through both doors (REST and MCP, through Fastify's inject() into the real
// service; the .pg file runs it on PostgreSQL + Redis): a KR code written beside the demo universe
// whose bars stop DELISTED_AFTER_SESSIONS or more of its market's sessions before the date is
// delisted on its last bar's date (src/store/delistings.ts). It is not in today's universe, it is
// in the universe of a day it was listed, and a call for it without a date answers not_found
// saying its last trading day (problem+json `delistedOn`; the MCP result's text).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../src/domain/calendar.js';
import { computeSnapshot, viewKey } from '../../src/serving/build.js';
import { loadUniverse } from '../../src/serving/served.js';
import { DELISTED_AFTER_SESSIONS } from '../../src/store/delistings.js';
import { startTestApp, TEST_AS_OF, type TestServer } from '../support/server.js';

const CODE = '900990';
/** Sessions of the KR market after the code's last bar: more than DELISTED_AFTER_SESSIONS. */
const SESSIONS_AFTER = 25;

describe('a delisted KR stock', () => {
  let t: TestServer;
  let key: string;
  let lastDay: string;
  let firstDay: string;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    const sessions = await t.app.store.market.tradingDates('KR');
    const kept = sessions.slice(0, sessions.length - SESSIONS_AFTER);
    lastDay = kept.at(-1) as string;
    firstDay = kept[0] as string;
    await t.app.store.market.writeDataset({
      securities: [{ market: 'KR', code: CODE, name: '폐지테스트', exchange: 'KOSDAQ', sector: 'Steel', currency: 'KRW', fiscalYearEndMonth: 12, source: 'krx' }],
      bars: kept.map((date, k) => ({ market: 'KR', code: CODE, date, open: 1_000 + k, high: 1_010 + k, low: 990 + k, close: 1_000 + k, volume: 10_000, tradedValue: 10_000 * (1_000 + k), shares: 1_000_000, marketCap: 1_000_000 * (1_000 + k), source: 'krx' })),
    });
    await t.app.store.refresh.bumpDatasetVersion();
    await t.app.publisher.rebuild();
  });
  after(() => t.close());

  it('is delisted on its last bar, a day its market traded SESSIONS_AFTER sessions after', async () => {
    assert.ok(SESSIONS_AFTER >= DELISTED_AFTER_SESSIONS);
    const stored = (await t.app.store.market.securities()).find((s) => s.code === CODE);
    assert.equal(stored?.delistedOn, lastDay);
    // The demo's stocks trade through the date: none of them is delisted.
    assert.deepEqual((await t.app.store.market.securities()).filter((s) => s.delistedOn !== undefined).map((s) => s.code), [CODE]);
  });

  it("is not in today's universe, and is in the universe of each day it was listed", async () => {
    const today = await loadUniverse(t.app.store.market, TEST_AS_OF);
    assert.equal(today.securities.find((s) => s.code === CODE), undefined);
    assert.deepEqual(today.delisted?.map((d) => [d.security.code, d.delistedOn]), [[CODE, lastDay]]);
    for (const day of [firstDay, lastDay]) {
      const universe = await loadUniverse(t.app.store.market, day);
      assert.ok(universe.securities.some((s) => s.code === CODE), `listed on ${day}`);
      assert.deepEqual(universe.delisted, []);
      // Its price that day is its own bar's close: the last bar is 1,000 + (sessions kept - 1).
      const view = computeSnapshot(universe, day).views.get(viewKey('KR', CODE));
      if (day === lastDay) assert.equal(view?.price?.close, 1_000 + (await t.app.store.market.bars(view?.security.id ?? -1)).length - 1);
      else assert.equal(view?.price?.close, 1_000);
    }
    // Not yet listed the day before its first bar.
    const before = await loadUniverse(t.app.store.market, '2000-01-01');
    assert.equal(before.securities.find((s) => s.code === CODE), undefined);
  });

  it('REST: not_found, saying its last trading day', async () => {
    const res = await t.get(`${t.url}/api/public/v2/stocks/${CODE}/snapshot`, key);
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    const body = res.body as { code: string; detail: string; delistedOn: string };
    assert.equal(body.code, 'not_found');
    assert.equal(body.delistedOn, lastDay);
    assert.equal(body.detail, `the KR stock ${CODE} (폐지테스트) was delisted: its last trading day was ${lastDay}; its history is kept, and answers as of a day on or before ${lastDay} include it`);
  });

  it('asOf: answered as of a day it was listed (search, snapshot, score, price history), not_found after its last day', async () => {
    const api = (path: string) => t.get(`${t.url}/api/public/v2${path}`, key);
    const found = await api(`/stocks?q=${CODE}&asOf=${lastDay}`);
    assert.deepEqual((found.body as { matches: { code: string }[] }).matches.map((m) => m.code), [CODE]);
    assert.deepEqual(((await api(`/stocks?q=${CODE}`)).body as { matches: unknown[] }).matches, []);
    // Its close on its last day: 1,000 + (sessions kept - 1), the bars written above.
    const close = 1_000 + (await t.app.store.market.tradingDates('KR')).indexOf(lastDay);
    const snapshot = await api(`/stocks/${CODE}/snapshot?asOf=${lastDay}`);
    assert.equal(snapshot.status, 200, snapshot.text);
    assert.deepEqual((snapshot.body as { price: { date: string; close: number } }).price, { date: lastDay, close, marketCap: 1_000_000 * close });
    const score = await api(`/stocks/${CODE}/score?asOf=${lastDay}`);
    assert.equal(score.status, 200, score.text);
    assert.equal((score.body as { currentPrice: number }).currentPrice, close);
    const prices = await api(`/stocks/${CODE}/prices?limit=1&asOf=${lastDay}`);
    assert.equal(prices.status, 200, prices.text);
    assert.deepEqual((prices.body as { bars: { date: string; close: number }[] }).bars.map((b) => [b.date, b.close]), [[lastDay, close]]);
    // A week after its last day (its market traded SESSIONS_AFTER sessions after it): not listed.
    for (const path of [`/stocks/${CODE}/snapshot`, `/stocks/${CODE}/score`, `/stocks/${CODE}/prices`]) {
      const after = await api(`${path}?asOf=${addDays(lastDay, 7)}`);
      assert.equal(after.status, 404, `${path}: ${after.text}`);
    }
  });

  it('MCP: an isError result, saying its last trading day', async () => {
    const res = await t.fetch(`${t.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_stock_score', arguments: { code: CODE } } }),
    });
    const body = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    assert.equal(body.result.isError, true);
    assert.equal(body.result.content[0]?.text, `not_found: the KR stock ${CODE} (폐지테스트) was delisted: its last trading day was ${lastDay}; its history is kept, and answers as of a day on or before ${lastDay} include it`);
  });
});
