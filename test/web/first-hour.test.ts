// The dashboard as a newcomer first sees it, in headless Chromium against the real service:
// the sign-in link `serve` prints for the loopback demo, English units and English names, every
// page at 1,400, 800 and 390 px in both languages (nothing wider than the window, nothing out of
// its card: tables fit or scroll in their own box; a screenshot of each), and the note naming a
// Korean font where the system has none.
// Skips when /usr/bin/chromium is absent (CI installs it, see .ci/run).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

interface Row {
  ticker: string;
  name: string;
  nameEn?: string | null;
  market: string;
  marketCap: number;
}

/** Whether fontconfig knows a font with Korean: what Chromium on Linux draws Hangul with. */
function systemHasKoreanFont(): boolean {
  try {
    return execFileSync('fc-list', [':lang=ko', 'family'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

describe('dashboard: the first hour', { skip: skipBrowser }, () => {
  let t: TestServer;
  let key: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    await ensureWebBuilt();
    t = await startTestServer();
    key = await t.newKey('paid');
    ({ browser, page, pageErrors } = await openPage({ locale: 'ko-KR', width: 1400, height: 900 }));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens signed in from the banner\'s loopback link and takes the key out of the address', async () => {
    await page.goto(`${t.url}/#key=${encodeURIComponent(key)}`);
    await page.locator('#rankings-table tbody tr').first().waitFor();
    assert.equal(new URL(page.url()).hash, '#/rankings', 'the key left the address bar');
    assert.equal(await page.evaluate("localStorage.getItem('krus-dashboard.apiKey')"), key);
    assert.equal(await page.evaluate('history.length'), 2, 'about:blank and the page: the address with the key was replaced, not pushed');
  });

  it('in English: amounts in KRW tn/bn and English names (the Korean one on hover); in Korean: 조/억 and the listed name', async () => {
    const res = await get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega,xlarge,large&limit=50`, key);
    const first = (res.body as { rows: Row[] }).rows[0]!;
    assert.ok(first.nameEn && first.nameEn !== first.name, 'a KR row has an English name of its own');
    const cell = (column: string) => page.locator(`#rankings-table tbody tr[data-ticker="${first.ticker}"] td`).nth(column === 'name' ? 2 : 6);

    await page.evaluate("localStorage.setItem('krus-dashboard.lang', 'en')");
    await page.goto(`${t.url}/#/rankings`);
    await page.reload(); // the language is read at load
    await page.locator('nav a[data-nav=rankings]', { hasText: 'Rankings' }).waitFor();
    await page.locator(`#rankings-table tbody tr[data-ticker="${first.ticker}"]`).waitFor();
    assert.equal(await page.textContent('#rankings-table thead th:nth-child(3)'), 'Name');
    assert.equal(await page.textContent('#rankings-table thead th:nth-child(7)'), 'Market cap');
    assert.equal(await cell('name').textContent(), first.nameEn);
    assert.equal(await cell('name').locator('span').getAttribute('title'), first.name);
    // Hand derivation: trillions with two decimals (6,640,000,000,000 -> "KRW 6.64 tn"); the
    // KR large band starts at 1e12 won, so every row of these bands is in trillions.
    const tn = (first.marketCap / 1e12).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    assert.equal(await cell('marketCap').textContent(), `KRW ${tn} tn`);
    const money = await page.locator('#rankings-table tbody td:nth-child(7)').allTextContents();
    assert.ok(money.every((m) => /^KRW \d[\d,]*\.\d\d tn$/.test(m)), money.join(' | '));
    const income = await page.locator('#rankings-table tbody td:nth-child(13)').allTextContents();
    assert.ok(income.every((m) => /^(KRW -?\d[\d,]*\.(\d\d tn|\d bn|\d m)|KRW -?\d[\d,]*|—)$/.test(m)), income.join(' | '));
    assert.ok(income.every((m) => !/[억조원]/.test(m)), 'no Korean units in English');
    // Nothing on the English page is in Korean but the stocks' Korean names (in tooltips) and
    // the language button's own name for Korean.
    const hangul = (await page.locator('main').innerText()).match(/[\uac00-\ud7a3]+/g) ?? [];
    assert.deepEqual(hangul, []);

    await page.evaluate("localStorage.setItem('krus-dashboard.lang', 'ko')");
    await page.reload();
    await page.locator('nav a[data-nav=rankings]', { hasText: '순위' }).waitFor();
    await page.locator(`#rankings-table tbody tr[data-ticker="${first.ticker}"]`).waitFor();
    assert.equal(await cell('name').textContent(), first.name);
    assert.match((await cell('marketCap').textContent()) ?? '', /^\d[\d,.]*조$/);
  });

  it('the stock page titles a KR stock in the page\'s language with the other name beside it', async () => {
    const res = await get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega&limit=1`, key);
    const kr = (res.body as { rows: Row[] }).rows[0]!;
    await page.evaluate("localStorage.setItem('krus-dashboard.lang', 'en')");
    await page.goto(`${t.url}/#/stock/${kr.ticker}`);
    await page.reload();
    await page.locator('#stock-other-name', { hasText: kr.name }).waitFor();
    assert.equal(await page.textContent('#stock-header h1'), `${kr.nameEn} ${kr.name} ${kr.ticker} · KR · KRW`);
    await page.evaluate("localStorage.setItem('krus-dashboard.lang', 'ko')");
    await page.reload();
    await page.locator('#stock-other-name', { hasText: kr.nameEn ?? '' }).waitFor();
    assert.equal(await page.textContent('#stock-header h1'), `${kr.name} ${kr.nameEn} ${kr.ticker} · KR · KRW`);
  });

  for (const lang of ['ko', 'en'] as const) {
    for (const width of [1400, 800, 390]) {
      it(`${lang} at ${width} px: no page is wider than the window; nothing spills out of its card; every table fits or scrolls in its own box; English pages hold no Korean but a stock's own name`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await page.evaluate(`localStorage.setItem('krus-dashboard.lang', '${lang}')`);
        const res = await get(`${t.url}/api/public/v2/rankings?market=KR&bands=mega&limit=1`, key);
        const top = (res.body as { rows: Row[] }).rows[0]!;
        const code = top.ticker;
        for (const [hash, ready] of [
          ['#/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200', '#rankings-table tbody tr'],
          ['#/screener?market=KR,US&limit=200', '#screen-table tbody tr'],
          [`#/stock/${code}`, '#price-chart[data-ready=true]'],
          ['#/exports', '#sectors-table tbody tr'],
        ] as const) {
          await page.goto(`${t.url}/${hash}`);
          await page.reload(); // the language is read at load
          await page.locator(ready).first().waitFor();
          if (hash.startsWith('#/stock')) await page.locator('#percentile-rows .prow').first().waitFor();
          if (hash.startsWith('#/exports')) await page.locator('#trade-chart canvas').first().waitFor();
          mkdirSync(ARTIFACTS, { recursive: true });
          await page.screenshot({ path: join(ARTIFACTS, `layout-${hash.slice(2).split(/[/?]/)[0]}-${lang}-${width}.png`), fullPage: true });
          // Every element inside a card ends within the card, unless a box between them scrolls
          // (a wide table in its .table-wrap) or clips: what a reader sees cut off or sticking out.
          const spills = (await page.evaluate(`(() => {
            const out = [];
            for (const card of document.querySelectorAll('.card')) {
              const edge = card.getBoundingClientRect();
              for (const el of card.querySelectorAll('*')) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) continue;
                let clipped = false;
                for (let p = el.parentElement; p !== null && p !== card; p = p.parentElement) {
                  const o = getComputedStyle(p).overflowX;
                  if (o !== 'visible') { clipped = true; break; }
                }
                if (clipped) continue;
                if (r.right > edge.right + 1 || r.left < edge.left - 1) out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' in ' + (card.id || 'card') + ' ' + Math.round(edge.left) + '..' + Math.round(edge.right));
              }
            }
            return out.slice(0, 5);
          })()`)) as string[];
          assert.deepEqual(spills, [], `${hash}: elements out of their card at ${width} px`);
          const layout = (await page.evaluate(`({
            page: document.documentElement.scrollWidth,
            window: window.innerWidth,
            tables: [...document.querySelectorAll('table')].map((table) => {
              const box = table.parentElement;
              const style = getComputedStyle(box);
              return {
                fits: table.getBoundingClientRect().width <= box.clientWidth + 1,
                scrolls: style.overflowX === 'auto' || style.overflowX === 'scroll',
                right: box.getBoundingClientRect().right,
              };
            }),
          })`)) as { page: number; window: number; tables: { fits: boolean; scrolls: boolean; right: number }[] };
          assert.ok(layout.page <= layout.window, `${hash}: page ${layout.page} px in a ${layout.window} px window`);
          if (lang === 'en') {
            // In English the only Korean is a KR stock's listed name beside its English one.
            const hangul = (await page.locator('main').innerText()).match(/[\uac00-\ud7a3]+/g) ?? [];
            assert.deepEqual(hangul.filter((word) => word !== top.name), [], `${hash}: Korean words in English`);
          }
          for (const table of layout.tables) {
            assert.ok(table.fits || table.scrolls, `${hash}: a table neither fits nor scrolls`);
            assert.ok(table.right <= layout.window, `${hash}: a table's box ends at ${table.right} px`);
          }
        }
      });
    }
  }

  it('names a Korean font exactly when the system has none (Chromium draws Hangul as boxes then)', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${t.url}/#/rankings`);
    await page.locator('#rankings-table tbody tr').first().waitFor();
    const noted = (await page.locator('#font-note').count()) === 1;
    assert.equal(noted, !systemHasKoreanFont());
    if (noted) assert.match((await page.textContent('#font-note')) ?? '', /Noto Sans KR[\s\S]*fonts-noto-cjk/);
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
