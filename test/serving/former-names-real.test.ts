// SEC's dated former names on a real recording, from the adapter to an as-of answer: Apple's
// submissions (test/fixtures/real/sec/submissions_CIK0000320193_AAPL.json.gz) list
//   APPLE INC           2007-01-10 .. 2019-08-05
//   APPLE COMPUTER INC  1994-01-26 .. 2007-01-04
//   APPLE COMPUTER INC/ FA 1997-07-28 .. 1997-07-28 (an empty span)
// so (src/domain/listings.ts `formerNameSpans`) APPLE COMPUTER INC holds from 1994-01-26 until
// APPLE INC's first day, 2007-01-10; APPLE INC until 2019-08-05; the ticker list's "Apple Inc."
// from then on. Sector (SIC 3571: Hardware) and exchange (NASDAQ) as submissions give them today.
// The recordings hold no price of Apple: it is listed by its filings (`listedOn`), so a day's
// universe has it on any day.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snapshotOfDay } from '../../src/serving/as-of.js';
import { viewKey } from '../../src/serving/build.js';
import { SecSource } from '../../src/sources/sec/source.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { startUpstream, type Upstream } from '../e2e/upstream.js';
import { context } from '../sources/helpers.js';
import { tempDir } from '../support/tmp.js';

describe("Apple's former names, from SEC's submissions to the name of a day", () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let upstream: Upstream;
  before(async () => {
    upstream = await startUpstream();
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    const source = new SecSource({ userAgent: 'Example Research admin@example.com', dataBaseUrl: upstream.base, wwwBaseUrl: upstream.base, tickers: ['AAPL'] });
    const result = await source.ingest(context({ asOf: '2026-11-25' }));
    await store.market.writeDataset(result.data, { asOf: '2026-11-25' });
  });
  after(async () => {
    await store.close();
    await upstream.close();
    tmp.cleanup();
  });

  it('stores the spans as listing versions, today\'s name last', async () => {
    const [apple] = await store.market.securities();
    assert.deepEqual([apple?.name, apple?.sector, apple?.exchange], ['Apple Inc.', 'Hardware', 'NASDAQ']);
    assert.deepEqual((await store.market.listingVersions()).get(apple?.id ?? -1), [
      { validFrom: '1994-01-26', name: 'APPLE COMPUTER INC', sector: 'Hardware', exchange: 'NASDAQ' },
      { validFrom: '2007-01-10', name: 'APPLE INC', sector: 'Hardware', exchange: 'NASDAQ' },
      { validFrom: '2019-08-05', name: 'Apple Inc.', sector: 'Hardware', exchange: 'NASDAQ' },
    ]);
  });

  it('as of a day, the universe names Apple as it was named that day', async () => {
    const nameOn = async (day: string) => (await snapshotOfDay(store.market, day)).views.get(viewKey('US', 'AAPL'))?.security.name;
    // Before the first dated name the store knows nothing older: its first version.
    assert.equal(await nameOn('1990-06-29'), 'APPLE COMPUTER INC');
    assert.equal(await nameOn('2007-01-09'), 'APPLE COMPUTER INC');
    assert.equal(await nameOn('2007-01-10'), 'APPLE INC');
    assert.equal(await nameOn('2019-08-02'), 'APPLE INC');
    assert.equal(await nameOn('2019-08-05'), 'Apple Inc.');
  });
});
