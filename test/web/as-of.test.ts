// The dashboard's as-of date picker, in headless Chromium against the real service: a day chosen
// in the header is asked of every stock endpoint the pages call (rankings, the screener, a
// stock's score, snapshot, percentiles, prices and band), follows the user from page to page
// in the tab, is said in a banner and in each answer's line, and "Today" drops it; the exports
// page, whose statistics are not asked as of a day, has no picker and asks without it.
// Skips when /usr/bin/chromium is absent (CI installs it, see .ci/run).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { TEST_AS_OF, get, startTestServer, type TestServer } from '../support/server.js';

/** A past day of the demo universe (the test server's data end on TEST_AS_OF). */
const PAST = '2025-06-02';

describe('dashboard: the as-of date picker', { skip: skipBrowser }, () => {
  let t: TestServer;
  let key: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let asked: URL[] = [];

  const apiCalls = (path: RegExp): URL[] => asked.filter((u) => path.test(u.pathname));

  before(async () => {
    await ensureWebBuilt();
    t = await startTestServer();
    key = await t.newKey('paid');
    ({ browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 1400, height: 900 }));
    page.on('request', (r: Request) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/public/v2/')) asked.push(url);
    });
    await page.goto(`${t.url}/#/blank`);
    await page.evaluate(`localStorage.clear(); sessionStorage.clear(); localStorage.setItem('krus-dashboard.lang', 'en'); localStorage.setItem('krus-dashboard.apiKey', ${JSON.stringify(key)});`);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('asks rankings as of the chosen day, says so in a banner and in the answer line', async () => {
    asked = [];
    await page.goto(`${t.url}/#/rankings?market=KR`);
    await page.reload();
    await page.locator('#rankings-table').waitFor();
    assert.ok(apiCalls(/\/rankings$/).every((u) => !u.searchParams.has('asOf')), 'today: no asOf asked');
    assert.equal(await page.locator('#as-of-banner').count(), 0);

    asked = [];
    await page.locator('#as-of').fill(PAST);
    await page.locator('#as-of').dispatchEvent('change');
    await page.locator('#as-of-banner').waitFor();
    await page.locator('#rankings-table').waitFor();
    const rankings = apiCalls(/\/rankings$/);
    assert.ok(rankings.length >= 1);
    assert.ok(rankings.every((u) => u.searchParams.get('asOf') === PAST), rankings.map(String).join(' '));
    assert.match(await page.locator('#as-of-banner').innerText(), new RegExp(PAST));
    // The answer's own line: the day it answers for, from the service's `asOf` block.
    const line = page.locator('#rankings .answer-as-of');
    assert.equal(await line.getAttribute('data-as-of'), PAST);
    const direct = await get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega,xlarge,large&limit=50&asOf=${PAST}`, key);
    assert.equal(direct.status, 200, direct.text);
    const info = (direct.body as { asOf: { date: string; lastSession: string | null; lastDisclosure: string | null } }).asOf;
    assert.equal(info.date, PAST);
    assert.ok((await line.innerText()).includes(info.lastSession ?? '-'));
  });

  it('follows the user to a stock: every stock endpoint asked as of the day', async () => {
    asked = [];
    const first = page.locator('#rankings-table tbody tr a.ticker').first();
    const code = (await first.innerText()).trim();
    await first.click();
    await page.locator('#as-of-banner').waitFor();
    await page.locator('#snapshot .meta').first().waitFor();
    const stockCalls = apiCalls(new RegExp(`/stocks/${code}/`));
    assert.ok(stockCalls.length >= 3, stockCalls.map(String).join(' '));
    assert.ok(stockCalls.every((u) => u.searchParams.get('asOf') === PAST), stockCalls.map(String).join(' '));
    assert.equal(await page.locator('#as-of').inputValue(), PAST);
  });

  it('"Today" drops the day: the next calls ask without asOf', async () => {
    asked = [];
    await page.locator('#as-of-today').click();
    await page.locator('#snapshot .meta').first().waitFor();
    assert.equal(await page.locator('#as-of-banner').count(), 0);
    assert.equal(await page.locator('#as-of').inputValue(), '');
    const stockCalls = apiCalls(/\/stocks\//);
    assert.ok(stockCalls.length >= 1);
    assert.ok(stockCalls.every((u) => !u.searchParams.has('asOf')), stockCalls.map(String).join(' '));
  });

  it('an asOf before the earliest day: the service\'s invalid_parameter in place of the table, the picker bounded by it', async () => {
    await page.goto(`${t.url}/#/rankings?market=KR`);
    await page.locator('#rankings-table').waitFor();
    const min = await page.locator('#as-of').getAttribute('min');
    assert.match(min ?? '', /^\d{4}-\d{2}-\d{2}$/, 'the picker starts at the earliest day health names');
    assert.ok((min as string) < TEST_AS_OF);
    await page.evaluate(`sessionStorage.setItem('krus-dashboard.asOf', '1990-01-02')`);
    await page.reload();
    await page.locator('.note.error').waitFor();
    assert.match(await page.locator('main').innerText(), /asOf/);
    await page.evaluate(`sessionStorage.clear()`);
  });

  it('the exports page has no picker and asks without asOf, even with a day chosen', async () => {
    await page.evaluate(`sessionStorage.setItem('krus-dashboard.asOf', ${JSON.stringify(PAST)})`);
    asked = [];
    await page.goto(`${t.url}/#/exports`);
    await page.reload();
    await page.locator('#trade-table').waitFor();
    assert.equal(await page.locator('#as-of').count(), 0);
    assert.equal(await page.locator('#as-of-banner').count(), 0);
    const exportsCalls = apiCalls(/\/exports\//);
    assert.ok(exportsCalls.length >= 1);
    assert.ok(exportsCalls.every((u) => !u.searchParams.has('asOf')));
    await page.evaluate(`sessionStorage.clear()`);
    assert.deepEqual(pageErrors, []);
  });
});
