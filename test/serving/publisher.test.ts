// The publisher serves each dataset version the store publishes: one a writer elsewhere bumped is
// found by catchUp (the poll's step), recomputes run one at a time, and a failed recompute keeps
// the previous dataset served.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DatasetHolder } from '../../src/serving/holder.js';
import { Publisher } from '../../src/serving/publisher.js';
import type { SnapshotDataset } from '../../src/serving/served.js';
import { startTestApp, type TestServer } from '../support/server.js';

function logSink(): { messages: string[]; logger: pino.Logger } {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) messages.push((JSON.parse(l) as { msg: string }).msg);
      done();
    },
  });
  return { messages, logger: pino({ level: 'info' }, sink) };
}

describe('publisher', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestApp();
    await t.app.ready;
    // The app's own poll would race these tests' steps: they call catchUp themselves.
    t.app.publisher.stop();
  });
  after(() => t.close());

  it('serves a version another writer published (no notification) once, with the label it was given', async () => {
    const served = t.app.holder.current?.version ?? 0;
    assert.equal(await t.app.publisher.catchUp(), false, 'nothing newer: no recompute');
    const bumped = await t.app.store.refresh.bumpDatasetVersion();
    assert.equal(bumped, served + 1);
    assert.equal(await t.app.publisher.catchUp(), true);
    assert.equal(t.app.holder.current?.version, bumped);
    assert.equal(t.app.holder.current?.source, 'demo');
    assert.equal(await t.app.publisher.catchUp(), false, 'served already');
  });

  it('runs recomputes one at a time, in the order asked; a poll meanwhile leaves it to the next', async () => {
    const market = t.app.store.market;
    let active = 0;
    let most = 0;
    // A slow read that only a recompute's load makes (the as-of answers' background reads after a
    // swap read no trade): two at once would be two loads at once.
    const slow = Object.create(market) as typeof market;
    slow.trade = async () => {
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, 50));
      active--;
      return market.trade();
    };
    const holder = new DatasetHolder<SnapshotDataset>();
    const swapped: number[] = [];
    holder.onSwap((d) => swapped.push(d.version));
    const publisher = new Publisher({ market: slow, refresh: t.app.store.refresh }, holder, () => t.clock.now, pino({ level: 'silent' }), { sourceLabel: 'demo' });
    const version = await t.app.store.refresh.datasetVersion();
    const first = publisher.publish(version - 1);
    const second = publisher.publish(version, [{ source: 'scripted', ok: true, at: '2026-11-20T12:00:00+09:00', records: 3 }]);
    assert.equal(await publisher.catchUp(), false, 'two recomputes asked for: the poll does not add a third');
    const reports = await Promise.all([first, second]);
    assert.equal(most, 1, 'never two loads at once');
    assert.deepEqual(swapped, [version - 1, version]);
    assert.deepEqual(reports.map((r) => [r.version, r.swapped]), [[version - 1, true], [version, true]]);
    assert.deepEqual(holder.current?.sources, [{ source: 'scripted', ok: true, at: '2026-11-20T12:00:00+09:00', records: 3 }]);
    await publisher.idle();
  });

  it('keeps the previous dataset served when a recompute fails; catchUp logs it and the next one serves', async () => {
    const market = t.app.store.market;
    let fail = true;
    const flaky = Object.create(market) as typeof market;
    flaky.securities = () => (fail ? Promise.reject(new Error('disk I/O error')) : market.securities());
    const { messages, logger } = logSink();
    const holder = new DatasetHolder<SnapshotDataset>();
    const publisher = new Publisher({ market: flaky, refresh: t.app.store.refresh }, holder, () => t.clock.now, logger, { sourceLabel: 'demo' });
    fail = false;
    const before = await publisher.rebuild();
    fail = true;
    const bumped = await t.app.store.refresh.bumpDatasetVersion();
    await assert.rejects(publisher.publish(bumped), /disk I\/O error/);
    assert.equal(holder.current?.version, before.version, 'the previous dataset stays served');
    assert.equal(await publisher.catchUp(), true);
    assert.ok(messages.includes('catch-up recompute failed; previous dataset kept'), messages.join(' | '));
    assert.equal(holder.current?.version, before.version);
    fail = false;
    assert.equal(await publisher.catchUp(), true, 'the poll tries the version again');
    assert.equal(holder.current?.version, bumped);
  });
});
