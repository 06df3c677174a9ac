// The dashboard as a new user tries it, in headless Chromium against the real service, in both
// languages: every place the page used to leave them stuck. A wrong key is refused before it is
// kept; an error takes the place of "Loading…" and speaks the page's language; the screener
// opens on one market; the Korean page is Korean (formula, disclaimer, plan, sector names, the
// exports caption) and its sector filter takes Korean names; the chart's time axis names its
// years and keeps every label inside, with no logo over the volume bars; a value that rounds to
// zero has no minus sign; an unknown stock points at the search box above it.
// Skips when /usr/bin/chromium is absent (CI installs it, see .ci/run).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { sectorKo } from '../../src/domain/sectors.js';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';

type Lang = 'ko' | 'en';
type Json = Record<string, unknown>;
const HANGUL = /[\uac00-\ud7a3]/;
const LOADING = /불러오는 중|Loading…/;

describe('dashboard: no dead ends for a new user', { skip: skipBrowser }, () => {
  let t: TestServer;
  let key: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const api = async <T>(path: string): Promise<T> => {
    const res = await get(`${t.url}/api/public/v2${path}`, key);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body as T;
  };
  /** Opens `hash` in `lang` with `storedKey` in the browser (null: none), the page loaded afresh. */
  const open = async (lang: Lang, hash: string, storedKey: string | null = key): Promise<void> => {
    await page.goto(`${t.url}/#/blank`);
    await page.evaluate(`localStorage.clear(); localStorage.setItem('krus-dashboard.lang', ${JSON.stringify(lang)});${storedKey === null ? '' : ` localStorage.setItem('krus-dashboard.apiKey', ${JSON.stringify(storedKey)});`}`);
    await page.goto(`${t.url}/${hash}`);
    await page.reload(); // the language is read at load
  };
  const mainText = () => page.locator('main').innerText();

  before(async () => {
    await ensureWebBuilt();
    t = await startTestServer();
    key = await t.newKey('paid');
    ({ browser, page, pageErrors } = await openPage({ locale: 'ko-KR', width: 1400, height: 900 }));
    // The texts of the last frame drawn on each canvas of the price chart's time axis (the last
    // row of the chart's table), with where they land: what the axis shows is not in the DOM.
    // A canvas's frame starts where the library paints or clears its whole area.
    // (A string, not a function: the test's compiler would add helpers the page does not have.)
    await page.addInitScript(`(() => {
      const frames = new Map();
      window.timeAxisLabels = () => [...frames.values()].flat();
      const onAxis = (canvas) => {
        const row = canvas.closest('tr');
        const table = canvas.closest('table');
        return canvas.closest('#price-chart') !== null && row !== null && table !== null && table.rows[table.rows.length - 1] === row && canvas.width > 100;
      };
      const proto = CanvasRenderingContext2D.prototype;
      const { fillText, fillRect, clearRect } = proto;
      const startsFrame = (ctx, x, y, w, h) => {
        const m = ctx.getTransform();
        if (m.a * x + m.e <= 0 && m.d * y + m.f <= 0 && m.a * w >= ctx.canvas.width && m.d * h >= ctx.canvas.height && onAxis(ctx.canvas)) frames.set(ctx.canvas, []);
      };
      proto.fillRect = function (x, y, w, h) {
        startsFrame(this, x, y, w, h);
        return fillRect.call(this, x, y, w, h);
      };
      proto.clearRect = function (x, y, w, h) {
        startsFrame(this, x, y, w, h);
        return clearRect.call(this, x, y, w, h);
      };
      proto.fillText = function (text, x, y, ...rest) {
        if (onAxis(this.canvas)) {
          const m = this.getTransform();
          const w = this.measureText(text).width * m.a;
          const at = m.a * x + m.e;
          const left = this.textAlign === 'center' ? at - w / 2 : this.textAlign === 'right' || this.textAlign === 'end' ? at - w : at;
          const frame = frames.get(this.canvas) ?? [];
          frames.set(this.canvas, frame);
          frame.push({ text, left, right: left + w, width: this.canvas.width });
        }
        return fillText.call(this, text, x, y, ...rest);
      };
    })()`);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const lang of ['ko', 'en'] as const) {
    it(`${lang}: a wrong key is not kept; the field stays with the error in the page's language; the right key is kept`, async () => {
      await open(lang, '#/rankings', null);
      await page.fill('#api-key', 'sk_wrong_0000');
      await page.click('.key-form button[type=submit]');
      const error = page.locator('#key-status.error');
      await error.waitFor();
      assert.equal(await page.evaluate("localStorage.getItem('krus-dashboard.apiKey')"), null, 'the wrong key is not stored');
      assert.equal(await page.locator('#api-key').count(), 1, 'the key field stays');
      assert.equal(await page.locator('#api-key').inputValue(), 'sk_wrong_0000', 'with what was typed, to correct it');
      const text = (await error.textContent()) ?? '';
      if (lang === 'ko') {
        assert.match(text, HANGUL);
        assert.doesNotMatch(text, /Bearer|valid API key/, 'no English server text on the Korean page');
      } else assert.doesNotMatch(text, HANGUL);
      assert.doesNotMatch(await mainText(), LOADING);
      await page.fill('#api-key', key);
      await page.click('.key-form button[type=submit]');
      await page.locator('#rankings-table tbody tr').first().waitFor();
      assert.equal(await page.evaluate("localStorage.getItem('krus-dashboard.apiKey')"), key);
      assert.equal(await page.locator('#api-key').count(), 0);
    });

    it(`${lang}: a stored key the service refuses gives the field back, with the error in the page's language`, async () => {
      await open(lang, '#/rankings', 'sk_revoked_0000');
      await page.locator('#api-key').waitFor();
      const text = (await page.locator('#key-status.error').textContent()) ?? '';
      if (lang === 'ko') assert.match(text, HANGUL);
      assert.doesNotMatch(text, /Bearer/);
      assert.equal(await page.evaluate("localStorage.getItem('krus-dashboard.apiKey')"), null);
      assert.doesNotMatch(await mainText(), LOADING);
    });

    it(`${lang}: an error takes the place of Loading…, in the page's language`, async () => {
      // An unknown sector: the service answers 400 invalid_parameter.
      await open(lang, '#/screener?market=KR&sectors=Fishing');
      const alert = page.locator('main [role=alert]');
      await alert.waitFor();
      assert.doesNotMatch(await mainText(), LOADING);
      const text = (await alert.textContent()) ?? '';
      if (lang === 'ko') {
        assert.match(text, HANGUL);
        assert.doesNotMatch(text, /parameter|allowed|names 'Fishing'/, 'the server\'s English detail is not shown in Korean');
      } else assert.match(text, /parameter 'sectors' names 'Fishing'/);
    });

    it(`${lang}: an unknown stock points at the search box above, not at the API`, async () => {
      await open(lang, '#/stock/999999');
      const alert = page.locator('main [role=alert]');
      await alert.waitFor();
      const text = (await alert.textContent()) ?? '';
      assert.doesNotMatch(text, /search_stocks|GET \/stocks/);
      assert.match(text, lang === 'ko' ? /999999[\s\S]*검색창/ : /999999[\s\S]*search box/);
      assert.doesNotMatch(await mainText(), LOADING);
      assert.equal(await page.evaluate('document.activeElement?.id'), 'stock-search', 'the search box has the focus');
    });

    it(`${lang}: the screener opens on one market, the page language's, then the last one chosen`, async () => {
      await open(lang, '#/screener');
      await page.locator('#screen-table tbody tr').first().waitFor();
      const natural = lang === 'ko' ? 'KR' : 'US';
      const markets = await page.locator('#screen-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-market')));
      assert.ok(markets.length > 0 && markets.every((m) => m === natural), `${lang}: ${[...new Set(markets)].join(',')}`);
      assert.equal(await page.getAttribute(`[data-control=market] button[data-value="${natural}"]`, 'aria-pressed'), 'true');
      const other = natural === 'KR' ? 'US' : 'KR';
      await page.click(`[data-control=market] button[data-value=${other}]`);
      await page.waitForURL((url) => url.hash.includes(`market=${other}`));
      await page.goto(`${t.url}/#/screener`);
      await page.locator(`#screen-table tbody tr[data-market=${other}]`).first().waitFor();
      assert.equal(await page.getAttribute(`[data-control=market] button[data-value="${other}"]`, 'aria-pressed'), 'true');
    });

    it(`${lang}: the price chart's time axis names the year of every month and keeps each label whole; no logo over the volume bars`, async () => {
      const us = (await api<{ rows: { ticker: string }[] }>('/rankings?market=US&bands=mega,xlarge,large,mid,small&limit=1')).rows[0]!;
      for (const width of [1400, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await open(lang, `#/stock/${us.ticker}`);
        for (const interval of ['day', 'week', 'month'] as const) {
          if (interval !== 'day') await page.click(`[data-control=interval] button[data-value=${interval}]`);
          await page.locator(`#price-chart[data-interval=${interval}][data-ready=true]`).waitFor();
          await page.waitForTimeout(300); // the library draws on the next animation frames
          const labels = (await page.evaluate('window.timeAxisLabels()')) as { text: string; left: number; right: number; width: number }[];
          assert.ok(labels.length > 0, `${width} px ${interval}: the time axis was drawn`);
          for (const l of labels) {
            // A year alone, or a month with its year (no bare "3월" or "Mar" whose year is off screen), or a day with its month.
            const named = lang === 'ko' ? /^(\d{4}년|\d{4}\.\d{2}|\d{1,2}월 \d{1,2}일)$/ : /^(\d{4}|[A-Z][a-z]{2} '\d{2}|[A-Z][a-z]{2} \d{1,2})$/;
            assert.match(l.text, named, `${width} px ${interval}`);
            assert.ok(l.left >= 0 && l.right <= l.width, `${width} px ${interval}: '${l.text}' drawn from ${l.left.toFixed(1)} to ${l.right.toFixed(1)} on a ${l.width} px axis`);
          }
        }
        assert.equal(await page.locator('#price-chart a[href*="tradingview"]').count(), 0, 'no logo inside the chart');
        // The library's licence asks for the attribution: a link under the chart instead.
        assert.equal(await page.locator('#prices .chart-attribution a[href^="https://www.tradingview.com"]').count(), 1);
      }
      await page.setViewportSize({ width: 1400, height: 900 });
    });

    it(`${lang}: a percentage that rounds to zero shows no minus sign`, async () => {
      // A stock of the test universe with a % metric just below zero (found, not assumed).
      const all = await api<{ rows: { code: string }[] }>('/screen?market=KR,US&limit=200&fields=marketCap');
      let found: { code: string; group: string; metric: string; value: number } | null = null;
      for (const { code } of all.rows) {
        const snapshot = await api<Record<string, Record<string, { value: number | null; unit: string }>>>(`/stocks/${encodeURIComponent(code)}/snapshot`);
        for (const [group, metrics] of Object.entries(snapshot)) {
          if (typeof metrics !== 'object' || metrics === null) continue;
          for (const [metric, m] of Object.entries(metrics)) {
            if (typeof m === 'object' && m !== null && m.unit === '%' && typeof m.value === 'number' && m.value < 0 && m.value > -0.05) found ??= { code, group, metric, value: m.value };
          }
        }
        if (found !== null) break;
      }
      assert.ok(found !== null, 'the test universe has a % value in (-0.05, 0)');
      await open(lang, `#/stock/${encodeURIComponent(found.code)}`);
      const cell = page.locator(`[data-group=${found.group}] tr[data-metric=${found.metric}] td`).nth(1);
      await cell.waitFor();
      assert.equal(await cell.textContent(), '0.0%', `${found.metric} ${found.value}`);
      assert.doesNotMatch(await mainText(), /-0\.0+(%|x)/);
    });
  }

  it('ko: the formula, the disclaimer, the plan, sector names and the exports caption are Korean; the sector filter takes 반도체', async () => {
    await open('ko', '#/rankings');
    await page.locator('[data-formula=score]').waitFor();
    const rankings = await api<{ formula: Record<string, string>; disclaimer: string }>('/rankings?market=KR&bands=mega,xlarge,large&limit=50');
    for (const k of ['score', 'expectedReturn', 'targetPrice', 'gap', 'backtest']) {
      const dd = page.locator(`[data-formula=${k}]`);
      assert.match((await dd.textContent()) ?? '', HANGUL, `formula ${k} in Korean`);
      assert.equal(await dd.getAttribute('title'), rankings.formula[k], 'the API text on hover');
    }
    assert.match((await page.textContent('#formula dl')) ?? '', /^점수/);
    const disclaimer = (await page.textContent('#formula .disclaimer')) ?? '';
    assert.match(disclaimer, /투자 권유가 아닙니다/);
    assert.doesNotMatch(disclaimer, /For information only/);
    await page.locator('#key-status', { hasText: '유료' }).waitFor();
    assert.doesNotMatch((await page.textContent('#key-status')) ?? '', /paid/);

    // Sector names in the screener, and the filter in Korean.
    await open('ko', `#/screener?market=KR&sectors=${encodeURIComponent('반도체')}`);
    await page.locator('#screen-table tbody tr').first().waitFor();
    const expected = await api<{ rows: Json[] }>('/screen?market=KR&sectors=Semiconductors&limit=50&fields=marketCap,per,roe,score,grade,priceChange3m');
    const codes = await page.locator('#screen-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code')));
    assert.deepEqual(codes, expected.rows.map((r) => r.code));
    const sectors = await page.locator('#screen-table td[data-col=sector]').allTextContents();
    assert.deepEqual([...new Set(sectors)], ['반도체']);
    assert.doesNotMatch((await page.locator('#screener .hint').first().textContent()) ?? '', /영문 업종명/);

    // The stock page's sector cohort in Korean.
    const code = expected.rows[0]!.code as string;
    await open('ko', `#/stock/${code}`);
    await page.locator('#cohorts').waitFor();
    assert.match((await page.textContent('#cohorts')) ?? '', /업종: 반도체/);

    // Exports: sector names and the caption under the table.
    await open('ko', '#/exports');
    await page.locator('#sectors-table tbody tr').first().waitFor();
    const names = await page.locator('#sectors-table tbody td:nth-child(2)').allTextContents();
    assert.ok(names.every((n) => HANGUL.test(n)), names.join(' | '));
    const caption = (await page.textContent('#top-sectors .hint')) ?? '';
    assert.match(caption, /24개월/);
    assert.doesNotMatch(caption, /exports summed/);
    // The demo's stock sectors all have Korean names (src/domain/sectors.ts).
    assert.equal(sectorKo('Semiconductors'), '반도체');
  });

  it('en: sector names stay English, and the screener sector filter takes them', async () => {
    await open('en', '#/screener?market=KR&sectors=Semiconductors');
    await page.locator('#screen-table tbody tr').first().waitFor();
    const sectors = await page.locator('#screen-table td[data-col=sector]').allTextContents();
    assert.deepEqual([...new Set(sectors)], ['Semiconductors']);
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
