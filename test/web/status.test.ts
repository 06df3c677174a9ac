// The dashboard's service-state panel in headless Chromium, against the real server:
// - while no dataset is served (/readyz 503) the page still loads and shows each source's
//   phase, progress bar, done / total, calls of the day's allowance, ETA and next try, moving as
//   the progress board moves; error texts only once a key is stored;
// - when the service turns ready the page loads its data by itself;
// - once ready, the coverage numbers per market, as /readyz gives them.
// Skips when /usr/bin/chromium is absent, like test/web/dashboard.test.ts.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { AccessControl } from '../../src/access/access.js';
import { StoreUsageCounter } from '../../src/access/usage.js';
import { createKey } from '../../src/app.js';
import { buildServer } from '../../src/http/server.js';
import { ProgressBoard } from '../../src/refresh/progress.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { DatasetHolder } from '../../src/serving/holder.js';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

describe('dashboard: the service-state panel in headless Chromium', { skip: skipBrowser }, () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let loading: Awaited<ReturnType<typeof buildServer>>;
  let loadingUrl: string;
  let demo: TestServer;
  let browser: Browser;
  let page: Page;
  const holder = new DatasetHolder();
  // 2026-11-20 12:00 in Seoul.
  const now = new Date('2026-11-20T03:00:00Z');
  const board = new ProgressBoard(() => now);
  let pageErrors: string[] = [];
  const text = async (selector: string): Promise<string> => ((await page.textContent(selector)) ?? '').trim();

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWebBuilt();
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    const clock = () => now;
    const access = new AccessControl(store.access, new StoreUsageCounter(store.access), { free: { daily: 1000, burst: 100 }, paid: { daily: 1000, burst: 100 } }, clock);
    board.update('opendart', { phase: 'calling', unit: 'companies', done: 500, total: 2_700, callsToday: 1_000, dailyAllowance: 20_000, etaSeconds: 3_600 });
    board.update('sec', { phase: 'downloading', unit: 'files', done: 0, total: 2, bytes: 250_000_000 });
    board.update('krx', { phase: 'failed', note: 'HTTP 400 LOGOUT', nextTryAt: new Date('2026-11-20T04:00:00Z') });
    loading = await buildServer({
      access, holder, clock, logger: pino({ level: 'silent' }), version: 't', bodyLimit: 10_000, maxBatch: 5, allowedOrigins: [],
      startupPhase: () => 'first refresh from the sources',
      progress: () => board.snapshot(),
    });
    loadingUrl = await loading.listen({ host: '127.0.0.1', port: 0 });
    demo = await startTestServer();
    ({ browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 1360, height: 900 }));
  });
  after(async () => {
    await browser?.close();
    await loading?.close();
    await demo?.close();
    await store?.close();
    tmp.cleanup();
  });

  it('loads while /readyz is 503 and shows each source\'s progress, ETA and next try', async () => {
    assert.equal((await get(`${loadingUrl}/readyz`, null)).status, 503);
    await page.goto(`${loadingUrl}/`);
    await page.locator('#service-status[data-status=loading]').waitFor();
    assert.equal(await text('#service-status h2'), 'Loading the data');
    assert.equal(await text('#service-status .status-detail'), 'not ready: dataset not loaded yet (first refresh from the sources)');
    const row = (source: string) => `#service-status tr[data-source=${source}]`;
    // OpenDART: 500 of 2,700 companies; its own ETA, 3,600 s from 12:00 in Seoul.
    assert.equal(await page.getAttribute(`${row('opendart')} progress`, 'value'), '500');
    assert.equal(await page.getAttribute(`${row('opendart')} progress`, 'max'), '2700');
    assert.equal(await text(`${row('opendart')} .phase`), 'calling');
    assert.equal(await text(`${row('opendart')} .count`), '500 / 2,700 companies');
    assert.equal(await text(`${row('opendart')} .calls`), '1,000 of 20,000 calls today');
    assert.equal(await text(`${row('opendart')} .eta`), 'done by 2026-11-20 13:00 (+09:00) (about 1 h)');
    // SEC: 0 of 2 files, 250 MB read, no rate yet: no ETA.
    assert.equal(await text(`${row('sec')} .count`), '0 / 2 files · 250.0 MB');
    assert.equal(await text(`${row('sec')} .eta`), 'ETA not known yet');
    // KRX failed: its next try, and without a key no upstream text.
    assert.equal(await text(`${row('krx')} .phase`), 'failed');
    assert.equal(await text(`${row('krx')} .next-try`), 'next try 2026-11-20 13:00 (+09:00)');
    assert.equal(await text(`${row('krx')} .why`), '');
    // The page itself asks for a key, under the panel.
    await page.getByText('Enter your API key').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'status-loading.png'), fullPage: true });

    // The board moves; the panel follows by itself.
    board.update('opendart', { done: 1_500 });
    assert.ok(await until(async () => (await page.getAttribute(`${row('opendart')} progress`, 'value')) === '1500', { intervalMs: 50 }), 'the progress bar at 1,500 within 10 s');
    assert.equal(await text(`${row('opendart')} .count`), '1,500 / 2,700 companies');
  });

  it('with a key: the error texts; the data calls answer 503 below the panel', async () => {
    const key = await createKey(store.access, 'paid', 'web', () => now);
    await page.fill('#api-key', key);
    await page.click('.key-form button[type=submit]');
    assert.ok(await until(async () => (await text('#service-status tr[data-source=krx] .why')) === 'HTTP 400 LOGOUT', { intervalMs: 50 }), "krx's error text within 10 s");
    await page.locator('#view .note.error', { hasText: '503' }).waitFor();
  });

  it('turns to the page\'s data by itself when the service is ready', async () => {
    // The demo server's dataset, served here: /readyz turns 200.
    holder.swap(demo.app.holder.current!);
    for (const source of ['opendart', 'sec']) board.update(source, { phase: 'done' });
    board.update('krx', { phase: 'done', nextTryAt: null });
    await page.locator('#rankings-table tbody tr').first().waitFor();
    await page.locator('#service-status[data-status=ready]').waitFor();
    assert.equal(pageErrors.length, 0, pageErrors.join('\n'));
  });

  it('once ready: the coverage numbers per market, as /readyz gives them', async () => {
    await page.goto(`${demo.url}/`);
    await page.locator('#service-status[data-status=ready] #coverage').waitFor();
    const markets = ((await get(`${demo.url}/readyz`, null)).body as { markets: { market: string; listed: number; priced: number; scored: number; complete: number }[] }).markets;
    assert.equal(markets.length, 2);
    for (const m of markets) {
      const pct = (m.complete * 100).toFixed(1);
      assert.equal(await text(`#coverage [data-market=${m.market}]`), `${m.market} ${m.scored} of ${m.listed} scored (${pct}%), ${m.priced} priced`);
    }
    assert.equal(await page.locator('#service-status h2').count(), 0, 'ready: the coverage line alone');
    await page.screenshot({ path: join(ARTIFACTS, 'status-ready.png'), fullPage: true });
    assert.equal(pageErrors.length, 0, pageErrors.join('\n'));
  });
});
