// A company's name and sector as of the day through the REST door (real HTTP against the real
// service on the demo universe; the .pg file runs it on PostgreSQL + Redis). The demo's companies
// are written undated (their listings hold from the earliest day); one KR company is then seen
// renamed to 새이름테크 and moved to another sector by a write dated MOVED (the 10th last KR
// session). As of the session before, every answer names it as the demo does and places it in its
// demo sector; as of MOVED and today, by its new name and sector.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import type { StoredSecurity } from '../../src/store/market-data.js';

const NEW_NAME = '새이름테크';

describe('name and sector as of the day (REST)', () => {
  let t: TestServer;
  let key: string;
  let stock: StoredSecurity;
  let newSector: string;
  let moved: string;
  let eve: string;
  before(async () => {
    t = await startTestServer();
    key = await t.newKey('paid');
    const sessions = await t.app.store.market.tradingDates('KR');
    moved = sessions.at(-10) as string;
    eve = sessions.at(-11) as string;
    const kr = (await t.app.store.market.securities()).filter((s) => s.market === 'KR');
    // A company listed long before (priced on the 60th last session), in a sector other than the one it moves to.
    const firstBars = await t.app.store.market.firstBarDates();
    stock = kr.find((s) => (firstBars.get(s.id) ?? '9999') <= (sessions.at(-60) as string)) as StoredSecurity;
    newSector = kr.map((s) => s.sector).find((sector) => sector !== stock.sector) as string;
    const { id: _id, delistedOn: _gone, ...security } = stock;
    await t.app.store.market.writeDataset({ securities: [{ ...security, name: NEW_NAME, sector: newSector }] }, { asOf: moved });
    await t.app.store.refresh.bumpDatasetVersion();
    await t.app.publisher.rebuild();
  });
  after(() => t.close());

  const api = (path: string) => t.get(`${t.url}/api/public/v2${path}`, key);

  it("snapshot, percentile, search and price history as of the day before the move: the demo's name and sector", async () => {
    const snapshot = await api(`/stocks/${stock.code}/snapshot?asOf=${eve}`);
    assert.equal(snapshot.status, 200, JSON.stringify(snapshot.body));
    const body = snapshot.body as { name: string; asOf: { date: string } };
    assert.deepEqual([body.name, body.asOf.date], [stock.name, eve]);
    const percentile = await api(`/stocks/${stock.code}/percentile?asOf=${eve}`);
    assert.equal(percentile.status, 200, JSON.stringify(percentile.body));
    assert.deepEqual([(percentile.body as { name: string }).name, (percentile.body as { cohortName: string }).cohortName], [stock.name, stock.sector]);
    // Searched as of that day by the name it had then: found.
    const found = await api(`/stocks?q=${encodeURIComponent(stock.name)}&market=KR&asOf=${eve}`);
    assert.ok((found.body as { matches: { code: string; name: string }[] }).matches.some((m) => m.code === stock.code && m.name === stock.name), JSON.stringify(found.body));
    // The price history as of that day names it as it was named then.
    const prices = await api(`/stocks/${stock.code}/prices?limit=1&asOf=${eve}`);
    assert.equal(prices.status, 200, JSON.stringify(prices.body));
    assert.equal((prices.body as { name: string }).name, stock.name);
  });

  it('as of the day of the move and today: the new name and sector', async () => {
    for (const suffix of [`?asOf=${moved}`, '']) {
      const snapshot = await api(`/stocks/${stock.code}/snapshot${suffix}`);
      assert.equal(snapshot.status, 200, JSON.stringify(snapshot.body));
      assert.equal((snapshot.body as { name: string }).name, NEW_NAME, suffix);
      const percentile = await api(`/stocks/${stock.code}/percentile${suffix}`);
      assert.equal((percentile.body as { cohortName: string }).cohortName, newSector, suffix);
    }
  });
});
