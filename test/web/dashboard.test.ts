// The web dashboard at `/`: how it is served (cache headers, the not-built page) and, in
// headless Chromium against the real service, that each page shows what the API answers.
// The browser part skips when /usr/bin/chromium is absent (CI installs it, see .ci/run).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { webRoutes } from '../../src/http/web.js';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { get, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

interface RankingRow {
  ticker: string;
  name: string;
  market: string;
  band: string;
  score: number;
}
interface Rankings {
  rows: RankingRow[];
  totalCount: number;
  updatedAt: string;
  source: string;
  formula: { score: string };
}
interface Bar {
  date: string;
  close: number;
}

describe('web dashboard: serving', () => {
  let t: TestServer;
  before(async () => {
    await ensureWebBuilt();
    t = await startTestServer();
  });
  after(() => t.close());

  it('serves index.html at / with no-cache and hashed assets cached for a year, immutable', async () => {
    const page = await get(`${t.url}/`, null);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `index.html names its script and stylesheet: ${assets.join(', ')}`);
    for (const asset of assets) {
      assert.match(asset, /-[A-Za-z0-9_-]{8}\.(js|css)$/, 'asset names carry a content hash');
      const res = await fetch(`${t.url}${asset}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      await res.arrayBuffer();
    }
    const missing = await get(`${t.url}/assets/nothing-here.js`, null);
    assert.equal(missing.status, 404);
  });

  it('answers a short page naming `npm run build:web` when the dashboard is not built', async () => {
    const empty = tempDir();
    const app = Fastify();
    try {
      await app.register(webRoutes, { distDir: join(empty.dir, 'dist') });
      const res = await app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /npm run build:web/);
    } finally {
      await app.close();
      empty.cleanup();
    }
  });
});

describe('web dashboard in headless Chromium', { skip: skipBrowser }, () => {
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
  /** One attribute of every element the selector matches, in document order. */
  const attrs = (selector: string, name: string): Promise<(string | null)[]> =>
    page.locator(selector).evaluateAll((els, attr) => els.map((el) => el.getAttribute(attr)), name);
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWebBuilt();
    t = await startTestServer();
    key = await t.newKey('paid');
    // A Korean browser: the page starts in Korean; one test switches to English.
    ({ browser, page, pageErrors } = await openPage({ locale: 'ko-KR', width: 1360, height: 900 }));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('asks for the API key once and keeps it across reloads', async () => {
    await page.goto(`${t.url}/`);
    await page.getByText('API 키를 입력하세요').waitFor();
    await page.fill('#api-key', key);
    await page.click('.key-form button[type=submit]');
    await page.locator('#rankings-table tbody tr').first().waitFor();
    await page.locator('#key-status', { hasText: '키 확인됨' }).waitFor();
    await page.reload();
    await page.locator('#rankings-table tbody tr').first().waitFor();
    assert.equal(await page.locator('#api-key').count(), 0, 'no key prompt after a reload');
  });

  it('rankings: the default filter shows the API rows, formula, updatedAt and source', async () => {
    const expected = await api<Rankings>('/rankings?market=KR&bands=mega,xlarge,large&limit=50');
    const tickers = await attrs('#rankings-table tbody tr', 'data-ticker');
    assert.deepEqual(tickers, expected.rows.map((r) => r.ticker));
    assert.match((await page.textContent('#rankings-count')) ?? '', new RegExp(`전체 ${expected.totalCount}`));
    // The Korean page shows the formula in Korean, the API's text on hover (test/web/dead-ends.test.ts).
    assert.equal(await page.getAttribute('[data-formula=score]', 'title'), expected.formula.score);
    assert.equal(await page.getAttribute('#rankings time.updated-at', 'datetime'), expected.updatedAt);
    assert.equal(await page.textContent('#rankings .source'), expected.source);
    // Every rankings field has a column.
    const columns = await attrs('#rankings-table thead th', 'data-sort');
    for (const field of ['ticker', 'name', 'market', 'currency', 'band', 'marketCap', 'currentPrice', 'targetPrice', 'gapPct', 'score', 'yoy', 'ttmNiEok', 'supplyPct', 'momentumPct']) {
      assert.ok(columns.includes(field), `column ${field}`);
    }
    await shot('rankings-ko');
  });

  it('rankings: market and band filters refetch; a column click sorts', async () => {
    await page.click('[data-control=market] button[data-value=US]');
    await page.click('[data-control=bands] input[value=small]');
    await page.waitForURL((url) => url.hash.includes('market=US') && url.hash.includes('small'));
    const expected = await api<Rankings>('/rankings?market=US&bands=mega,xlarge,large,small&limit=50');
    const usRows = async () => {
      const markets = await attrs('#rankings-table tbody tr', 'data-market');
      return markets.length === expected.rows.length && markets.every((m) => m === 'US');
    };
    assert.ok(await until(usRows, { timeoutMs: 5_000, intervalMs: 50 }), 'the US rankings rendered within 5 s');
    const tickers = await attrs('#rankings-table tbody tr', 'data-ticker');
    assert.deepEqual(tickers, expected.rows.map((r) => r.ticker));
    assert.ok(expected.rows.some((r) => r.band === 'small'), 'the demo universe has small US stocks');

    await page.click('#rankings-table th[data-sort=score] button');
    const byScore = [...expected.rows].sort((a, b) => b.score - a.score).map((r) => r.ticker);
    const sorted = await attrs('#rankings-table tbody tr', 'data-ticker');
    assert.deepEqual(sorted, byScore, 'highest score first');
    assert.equal(await page.getAttribute('#rankings-table th[data-sort=score]', 'aria-sort'), 'descending');
    await page.click('#rankings-table th[data-sort=score] button');
    const lowest = await page.locator('#rankings-table tbody tr').first().getAttribute('data-ticker');
    assert.equal(expected.rows.find((r) => r.ticker === lowest)?.score, Math.min(...expected.rows.map((r) => r.score)), 'a second click: lowest score first');
  });

  it('switches the language to English and back', async () => {
    await page.click('#lang-toggle');
    await page.locator('nav a[data-nav=rankings]', { hasText: 'Rankings' }).waitFor();
    assert.equal(await page.textContent('#rankings-table th[data-sort=gapPct] button'), 'Gap');
    await shot('rankings-en');
    await page.click('#lang-toggle');
    await page.locator('nav a[data-nav=rankings]', { hasText: '순위' }).waitFor();
  });

  it('stock: finds a KR stock by name and shows score, snapshot, price chart by interval, band and percentiles', async () => {
    const kr = (await api<Rankings>('/rankings?market=KR&bands=mega,xlarge,large,mid,small&limit=200')).rows[0]!;
    await page.goto(`${t.url}/#/stock`);
    await page.fill('#stock-search', kr.name.slice(0, 6));
    await page.locator(`#search-results a[data-ticker="${kr.ticker}"]`).click();
    await page.waitForURL((url) => url.hash === `#/stock/${kr.ticker}`);

    const score = await api<{ score: number; grade: string; targetPrice: number; gapPct: number }>(`/stocks/${kr.ticker}/score`);
    await page.locator('#score-value').waitFor();
    assert.equal(await page.textContent('#score-value'), score.score.toFixed(1));
    assert.equal(await page.textContent('#grade'), score.grade);
    assert.equal(await page.textContent('#target-price'), `${score.targetPrice.toLocaleString('en-US', { maximumFractionDigits: 0 })}원`);
    assert.match((await page.textContent('#gap-pct')) ?? '', new RegExp(`${Math.abs(score.gapPct).toFixed(2).replace('.', '\\.')}%$`));

    const snapshot = await api<{ valuation: { per: { value: number | null; referenceQuarter: string } }; perShare: { eps: { value: number | null }; dividendYield: { value: number | null } } }>(`/stocks/${kr.ticker}/snapshot`);
    const perRow = page.locator('[data-group=valuation] tr[data-metric=per]');
    await perRow.waitFor();
    const perCells = await perRow.locator('td').allTextContents();
    if (snapshot.valuation.per.value !== null) assert.equal(perCells[1], `${snapshot.valuation.per.value.toFixed(2)}x`);
    assert.equal(perCells[2], snapshot.valuation.per.referenceQuarter);
    const groups = await attrs('.snapshot-group', 'data-group');
    assert.deepEqual(groups, ['valuation', 'profitability', 'growth', 'stability', 'cashGeneration', 'earningsQuality', 'perShare']);
    // Per-share amounts in whole won (not 억 or 조), the yield in percent to one decimal.
    const eps = snapshot.perShare.eps.value;
    assert.notEqual(eps, null, 'a demo KR stock has a TTM EPS');
    assert.equal((await page.locator('[data-group=perShare] tr[data-metric=eps] td').allTextContents())[1], `${Math.round(eps!).toLocaleString('en-US')}원`);
    const dividendYield = snapshot.perShare.dividendYield.value;
    if (dividendYield !== null) assert.equal((await page.locator('[data-group=perShare] tr[data-metric=dividendYield] td').allTextContents())[1], `${dividendYield.toFixed(1)}%`);

    for (const [interval, limit] of [['day', 260], ['week', 260], ['month', 120]] as const) {
      if (interval !== 'day') await page.click(`[data-control=interval] button[data-value=${interval}]`);
      await page.locator(`#price-chart[data-interval=${interval}][data-ready=true]`).waitFor();
      const prices = await api<{ count: number; bars: Bar[] }>(`/stocks/${kr.ticker}/prices?interval=${interval}&limit=${limit}`);
      const last = prices.bars.at(-1)!;
      assert.equal(await page.getAttribute('#price-chart', 'data-count'), String(prices.count), `${interval} bar count`);
      assert.equal(await page.getAttribute('#price-caption', 'data-last-date'), last.date, `${interval} last bar date`);
      assert.equal(Number(await page.getAttribute('#price-caption', 'data-last-close')), last.close);
      assert.ok((await page.locator('#price-chart canvas').count()) > 0, 'the chart draws on canvas');
    }
    await page.click('[data-control=interval] button[data-value=day]');
    await page.locator('#price-chart[data-interval=day][data-ready=true]').waitFor();

    const band = await api<{ median: number | null; daysUsed: number }>(`/stocks/${kr.ticker}/valuation-band?type=per&from=2015-01-01`);
    await page.locator('#band-stats[data-type=per]').waitFor();
    if (band.median !== null) assert.equal(await page.textContent('#band-median'), `${band.median.toFixed(2)}x`);
    if (band.daysUsed > 0) assert.equal(await page.locator('svg.band-chart [data-line=median]').count(), 1);
    await page.click('[data-control=band-type] button[data-value=pbr]');
    await page.locator('#band-stats[data-type=pbr]').waitFor();
    const pbr = await api<{ median: number | null }>(`/stocks/${kr.ticker}/valuation-band?type=pbr&from=2015-01-01`);
    if (pbr.median !== null) assert.equal(await page.textContent('#band-median'), `${pbr.median.toFixed(2)}x`);

    const sector = await api<{ cohortName: string; metrics: { metric: string; percentile: number | null }[] }>(`/stocks/${kr.ticker}/percentile?cohort=sector`);
    const market = await api<{ metrics: { metric: string; percentile: number | null }[] }>(`/stocks/${kr.ticker}/percentile?cohort=market`);
    await page.locator('#percentile-rows .prow').first().waitFor();
    assert.equal(await page.locator('#percentile-rows .prow').count(), 17);
    for (const [cohort, body] of [['sector', sector], ['market', market]] as const) {
      const shown = await attrs(`#percentile-rows .pbar[data-cohort=${cohort}]`, 'data-percentile');
      assert.deepEqual(shown, body.metrics.map((m) => (m.percentile === null ? '' : String(m.percentile))), `${cohort} percentiles`);
    }
    // The sector in Korean on the Korean page (sectorKo).
    const cohort = sector as { cohortName: string; cohortNameKo?: string | null };
    assert.match((await page.textContent('#cohorts')) ?? '', new RegExp(cohort.cohortNameKo ?? cohort.cohortName));
    await shot('stock-kr');
  });

  it('stock: search finds a KR stock by its Korean name and by its initial consonants (search_stocks)', async () => {
    const kr = (await api<Rankings>('/rankings?market=KR&bands=mega,xlarge,large,mid,small&limit=200')).rows[1]!;
    assert.match(kr.name, /^[가-힣]+\d*$/);
    await page.goto(`${t.url}/#/stock`);
    await page.fill('#stock-search', kr.name);
    const byName = page.locator(`#search-results a[data-ticker="${kr.ticker}"]`);
    await byName.waitFor();
    assert.match((await byName.textContent()) ?? '', new RegExp(`^${kr.name} `));
    // As a Korean keyboard types them: compatibility jamo, one per syllable (한성전자 -> ㅎㅅㅈㅈ).
    const initials = [...kr.name].map((c) => (/[가-힣]/.test(c) ? INITIALS[Math.floor((c.charCodeAt(0) - 0xac00) / 588)] : c)).join('');
    await page.fill('#stock-search', initials);
    await page.locator(`#search-results a[data-ticker="${kr.ticker}"]`).click();
    await page.waitForURL((url) => url.hash === `#/stock/${kr.ticker}`);
    await page.locator('#score-value').waitFor();
  });

  it('stock: looks a US ticker up directly, with dollar formatting; an unknown code shows the API error', async () => {
    const us = (await api<Rankings>('/rankings?market=US&bands=mega,xlarge,large,mid,small&limit=1')).rows[0]!;
    await page.goto(`${t.url}/#/stock`);
    await page.fill('#stock-search', us.ticker.toLowerCase());
    await page.press('#stock-search', 'Enter');
    await page.waitForURL((url) => url.hash === `#/stock/${us.ticker}`);
    await page.locator('#stock-code', { hasText: `${us.ticker} · US · USD` }).waitFor();
    assert.match((await page.textContent('#current-price')) ?? '', /^\$\d[\d,]*\.\d{2}$/);
    await page.locator('#price-chart[data-ready=true]').waitFor();
    await page.click('#lang-toggle');
    await page.locator('#snapshot h2', { hasText: 'TTM snapshot' }).waitFor();
    await shot('stock-us-en');
    await page.click('#lang-toggle');

    // An unknown code points at the search box (test/web/dead-ends.test.ts).
    await page.goto(`${t.url}/#/stock/999999`);
    await page.locator('[role=alert]', { hasText: '999999' }).waitFor();
  });

  it('exports: trade totals over a chosen window back to 1990-01, and top sectors with YoY', async () => {
    await page.goto(`${t.url}/#/exports`);
    const def = await api<{ from: string; to: string; rows: { month: string; exports: number }[] }>('/exports/total');
    await page.locator('#trade-chart').waitFor();
    assert.equal(await page.getAttribute('#trade-chart', 'data-from'), def.from);
    assert.equal(await page.getAttribute('#trade-chart', 'data-to'), def.to);
    assert.equal(await page.locator('#trade-table tbody tr').count(), def.rows.length);

    await page.click('[data-preset=windowAll]');
    await page.locator('#trade-chart[data-from="1990-01"]').waitFor();
    const all = await api<{ rows: { month: string; exports: number }[] }>(`/exports/total?from=1990-01&to=${def.to}`);
    assert.equal(await page.getAttribute('#trade-chart', 'data-months'), String(all.rows.length));
    const first = all.rows[0]!;
    assert.equal(first.month, '1990-01');
    const firstCells = await page.locator('#trade-table tr[data-month="1990-01"] td').allTextContents();
    assert.equal(firstCells[1], `$${(first.exports / 1e9).toFixed(2)}B`);
    await page.locator('#trade-chart canvas').first().waitFor();

    const sectors = await api<{ sectors: { sector: string; series: { yoyPct: number | null }[] }[] }>(`/exports/sectors?from=1990-01&to=${def.to}&top=10`);
    await page.locator('#sectors-table tbody tr').first().waitFor();
    const names = await attrs('#sectors-table tbody tr', 'data-sector');
    assert.deepEqual(names, sectors.sectors.map((s) => s.sector));
    await page.click('[data-control=top] button[data-value="5"]');
    assert.ok(await until(async () => (await page.locator('#sectors-table tbody tr').count()) === 5, { timeoutMs: 5_000, intervalMs: 50 }), 'five sector rows within 5 s');
    await shot('exports');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  });
});

/** The 19 initial consonants in syllable order, as compatibility jamo (what a keyboard types). */
const INITIALS = ['ㄱ', 'ㄲ', 'ㄴ', 'ㄷ', 'ㄸ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅃ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅉ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ'];
