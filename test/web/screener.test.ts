// The dashboard's screener page (#/screener) in headless Chromium against the real service: it
// shows the rows GET /screen answers, in the server's order, with values in their units; the
// form and the column titles screen again; a row links to its stock page; errors are shown.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

type Row = Record<string, string | number | null> & { code: string; market: string };
interface Screen {
  rows: Row[];
  totalCount: number;
  droppedForNull: Record<string, number>;
  updatedAt: string;
}

/** The page's number forms (web/src/format.ts): one decimal, grouped, with a unit. */
const oneDecimal = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

describe('web dashboard: the screener page in headless Chromium', { skip: skipBrowser }, () => {
  let t: TestServer;
  let key: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const screen = async (query: string): Promise<Screen> => {
    const res = await get(`${t.url}/api/public/v2/screen?${query}`, key);
    assert.equal(res.status, 200, res.text);
    return res.body as Screen;
  };
  const codes = (): Promise<(string | null)[]> => page.locator('#screen-table tbody tr').evaluateAll((els) => els.map((el) => el.getAttribute('data-code')));
  /** The fields the page asks for: bounded and sort fields first, then its usual few (web/src/pages/screener.ts). */
  const fields = (...first: string[]) => [...new Set([...first, 'marketCap', 'per', 'roe', 'score', 'grade', 'priceChange3m'])].join(',');
  /** Polls until the condition holds (5 s at most). */
  const until = async (condition: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + 5_000;
    while (!(await condition())) {
      if (Date.now() > deadline) assert.fail('condition not met within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    await ensureWebBuilt();
    t = await startTestServer();
    key = await t.newKey('paid');
    ({ browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 1360, height: 900 }));
    // The demo's sign-in link: the key in the fragment, kept by the page on a loopback host.
    await page.goto(`${t.url}/#key=${key}`);
    await page.locator('#rankings-table tbody tr').first().waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a screen from the URL shows the API rows in the server order, values in their units, updatedAt', async () => {
    await page.goto(`${t.url}/#/screener?market=KR,US&filters=roe:5:,per::40&sort=roe:desc&limit=50`);
    await page.locator('#screen-table tbody tr').first().waitFor();
    const expected = await screen(`market=KR,US&filters=roe:5:,per::40&sort=roe:desc&limit=50&fields=${fields('roe', 'per')}`);
    assert.ok(expected.rows.length >= 5, `${expected.rows.length} rows`);
    assert.deepEqual(await codes(), expected.rows.map((r) => r.code));
    assert.equal(await page.textContent('#screen-count'), `Showing ${expected.rows.length} of ${expected.totalCount}`);
    // ROE in percent and PER as a multiple, as the metrics carry them.
    const first = expected.rows[0]!;
    const firstRow = page.locator('#screen-table tbody tr').first();
    assert.equal(await firstRow.locator('td[data-col=roe]').textContent(), `${oneDecimal(first.roe as number)}%`);
    assert.equal(await firstRow.locator('td[data-col=per]').textContent(), `${twoDecimals(first.per as number)}x`);
    assert.equal(await page.getAttribute('#screen-table th[data-sort=roe]', 'aria-sort'), 'descending');
    assert.equal(await page.getAttribute('#screener time.updated-at', 'datetime'), expected.updatedAt);
    // The stocks left out for lacking a value, per bounded field.
    assert.equal(await page.textContent('#screen-dropped'), `Left out for having no value: ROE ${expected.droppedForNull['roe']}, PER ${expected.droppedForNull['per']}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'screener-en.png'), fullPage: true });
  });

  it('the form adds a bound and screens again; a column title re-sorts on the server, twice flips', async () => {
    await page.selectOption('[data-control=bound-field-2]', 'operatingMargin');
    await page.fill('[data-control=bound-min-2]', '3');
    await page.click('#screen-apply');
    await page.waitForURL((url) => url.hash.includes('operatingMargin%3A3%3A'));
    const expected = await screen(`market=KR,US&filters=roe:5:,per::40,operatingMargin:3:&sort=roe:desc&limit=50&fields=${fields('roe', 'per', 'operatingMargin')}`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(expected.rows.map((r) => r.code)));

    await page.click('#screen-table th[data-sort=per] button');
    const byPer = await screen(`market=KR,US&filters=roe:5:,per::40,operatingMargin:3:&sort=per:desc&limit=50&fields=${fields('roe', 'per', 'operatingMargin')}`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(byPer.rows.map((r) => r.code)));
    assert.equal(await page.getAttribute('#screen-table th[data-sort=per]', 'aria-sort'), 'descending');
    await page.click('#screen-table th[data-sort=per] button');
    const perAsc = await screen(`market=KR,US&filters=roe:5:,per::40,operatingMargin:3:&sort=per:asc&limit=50&fields=${fields('roe', 'per', 'operatingMargin')}`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(perAsc.rows.map((r) => r.code)));
    assert.equal(await page.getAttribute('#screen-table th[data-sort=per]', 'aria-sort'), 'ascending');
    assert.notDeepEqual(byPer.rows.map((r) => r.code), perAsc.rows.map((r) => r.code));
  });

  it('market and band controls screen again', async () => {
    await page.goto(`${t.url}/#/screener?market=KR,US&sort=marketCap:desc&limit=50`);
    await page.locator('#screen-table tbody tr').first().waitFor();
    await page.click('[data-control=market] button[data-value=US]');
    await page.click('[data-control=bands] input[value=mega]');
    await page.waitForURL((url) => url.hash.includes('market=US') && url.hash.includes('bands=mega'));
    const expected = await screen(`market=US&bands=mega&sort=marketCap:desc&limit=50&fields=${fields('marketCap')}`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(expected.rows.map((r) => r.code)));
    assert.ok(expected.rows.length > 0 && expected.rows.every((r) => r.market === 'US' && r.band === 'mega'));
  });

  it('the exchange select screens again on that exchange, and the URL keeps it', async () => {
    await page.goto(`${t.url}/#/screener?market=KR,US&sort=marketCap:desc&limit=200`);
    await page.locator('#screen-table tbody tr').first().waitFor();
    await page.selectOption('[data-control=exchange]', 'KOSDAQ');
    await page.waitForURL((url) => url.hash.includes('exchanges=KOSDAQ'));
    const expected = await screen(`market=KR,US&exchanges=KOSDAQ&sort=marketCap:desc&limit=200&fields=${fields('marketCap')}`);
    // Every KOSDAQ stock is KR; the page shows the API's rows in its order.
    const all = await screen(`market=KR&sort=marketCap:desc&limit=200&fields=${fields('marketCap')}`);
    assert.ok(expected.rows.length > 0 && expected.rows.length < all.rows.length && expected.rows.every((r) => r.market === 'KR'), `${expected.rows.length} KOSDAQ of ${all.rows.length} KR`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(expected.rows.map((r) => r.code)));
    assert.equal(await page.locator('[data-control=exchange]').inputValue(), 'KOSDAQ');
    // Back to every exchange.
    await page.selectOption('[data-control=exchange]', '');
    await page.waitForURL((url) => !url.hash.includes('exchanges='));
    await until(async () => (await codes()).length === Math.min(200, all.totalCount + (await screen('market=US&limit=1')).totalCount));
  });

  it('a row links to its stock page', async () => {
    const code = (await codes())[0]!;
    await page.click(`#screen-table tbody tr[data-code="${code}"] a.ticker`);
    await page.waitForURL((url) => url.hash === `#/stock/${code}`);
    await page.locator('#score-value').waitFor();
  });

  it('a bound that is not a number is refused in the form; an unknown sector shows the API error', async () => {
    await page.goto(`${t.url}/#/screener?market=KR,US`);
    await page.locator('#screen-table tbody tr').first().waitFor();
    await page.selectOption('[data-control=bound-field-0]', 'roe');
    await page.fill('[data-control=bound-min-0]', 'ten');
    await page.click('#screen-apply');
    await page.locator('#screen-form-error', { hasText: 'ROE: min and max must be numbers (grades A+ to D for grade).' }).waitFor();
    // A grade bound takes grades: B+ or better.
    await page.fill('[data-control=bound-min-0]', '');
    await page.selectOption('[data-control=bound-field-1]', 'grade');
    await page.fill('[data-control=bound-min-1]', 'B+');
    await page.click('#screen-apply');
    await page.waitForURL((url) => url.hash.includes('grade%3AB%2B%3A'));
    const graded = await screen(`market=KR,US&filters=grade:B%2B:&sort=marketCap:desc&limit=50&fields=${fields('grade', 'marketCap')}`);
    await until(async () => JSON.stringify(await codes()) === JSON.stringify(graded.rows.map((r) => r.code)));
    assert.ok(graded.rows.length > 0 && graded.rows.every((r) => ['A+', 'A', 'B+'].includes(r.grade as string)));
    await page.goto(`${t.url}/#/screener?sectors=Fishing`);
    await page.locator('.note.error', { hasText: "parameter 'sectors' names 'Fishing'" }).waitFor();
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  });
});
