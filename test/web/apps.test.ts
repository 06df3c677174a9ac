// The MCP Apps view in headless Chromium inside a real Apps host: a minimal host page built on the
// extension's host library (AppBridge) and the official client (test/web/apps-host/host.ts),
// served on the service's own origin, connecting to the real service on loopback in each protocol
// era. The host reads the view the tool declares, shows it in a sandboxed frame and hands it the
// tool's result; the view draws it (a demo stock's candles with its last close, the valuation
// band as price levels, a screen table); a row click asks get_stock_snapshot through the host,
// counted for the host's key like any call, and the view shows that stock's snapshot. A host
// without the extension is shown no view.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import type { HostAnswer, HostRun } from './apps-host/types.js';
import { VIEW_URI } from '../../src/http/mcp-apps.js';
import { ensureWebBuilt, openPage, skipBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const HOST_PATH = '/__apps-test-host';

/** The view's number forms (web/src/format.ts): grouped, a fixed number of decimals. */
const grouped = (v: number, digits: number) => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The host page's script: host.ts and its libraries bundled for the browser by Vite. */
async function hostScript(): Promise<string> {
  const { build } = await import('vite');
  const out = await build({
    configFile: false,
    logLevel: 'error',
    build: {
      write: false,
      minify: false,
      lib: { entry: join(import.meta.dirname, 'apps-host', 'host.ts'), formats: ['iife'], name: 'appsHost', fileName: 'host' },
      rollupOptions: { onwarn: () => undefined },
    },
  });
  const outputs = Array.isArray(out) ? out : [out];
  for (const o of outputs) {
    if ('output' in o) {
      const chunk = o.output.find((c) => c.type === 'chunk');
      if (chunk !== undefined && chunk.type === 'chunk') return chunk.code;
    }
  }
  throw new Error('the host bundle was not built');
}

describe('MCP Apps: the view in a real Apps host in Chromium, both protocol eras', { skip: skipBrowser }, () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let script: string;
  /** A KR demo stock (the largest by market cap) and the screen the table test shows. */
  let kr: string;

  before(async () => {
    await ensureWebBuilt();
    script = await hostScript();
    t = await startTestServer();
    const key = await t.newKey('paid');
    const screen = (await t.get(`${t.url}/api/public/v2/screen?market=KR&sort=marketCap:desc&limit=1`, key)).body as { rows: { code: string }[] };
    kr = screen.rows[0]!.code;
    ({ browser, page, pageErrors } = await openPage({ locale: 'en-US', width: 1000, height: 900 }));
    // The host page on the service's origin, so its client reaches /api/mcp as the same origin.
    await page.route(`${t.url}${HOST_PATH}`, (route) =>
      route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><head><meta charset="utf-8"><title>Apps host</title></head><body><script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>` }),
    );
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Opens a fresh host page and runs one tool through it; the view's frame. */
  async function host(run: Omit<HostRun, 'endpoint'>): Promise<{ answer: HostAnswer; view: FrameLocator }> {
    await page.goto(`${t.url}${HOST_PATH}`);
    const answer = await page.evaluate((o) => (globalThis as unknown as { runHost: (r: HostRun) => Promise<HostAnswer> }).runHost(o), { ...run, endpoint: `${t.url}/api/mcp` });
    return { answer, view: page.frameLocator('iframe#view') };
  }
  /** The key's calls counted today, read through REST's health (itself counted: the value includes it). */
  async function callsToday(key: string): Promise<number> {
    const res = await t.get(`${t.url}/api/public/v2/health`, key);
    assert.equal(res.status, 200, res.text);
    return (res.body as { callsToday: number }).callsToday;
  }

  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    it(`${era}: get_price_history shows the demo stock's candles and volume with its last close; the PER band is drawn as prices`, async () => {
      const key = await t.newKey('paid');
      const args = { code: kr, interval: 'day', limit: 120 };
      const { answer, view } = await host({ key, era, tool: 'get_price_history', args, theme: 'light', locale: 'en-US', apps: true });
      assert.equal(answer.era, era === '2026-07-28' ? 'modern' : 'legacy');
      assert.equal(answer.version, era);
      assert.deepEqual(answer.toolMeta, { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
      assert.deepEqual([answer.resourceUri, answer.mimeType], [VIEW_URI, 'text/html;profile=mcp-app']);

      const prices = (await t.get(`${t.url}/api/public/v2/stocks/${kr}/prices?interval=day&limit=120`, key)).body as { bars: { date: string; close: number; volume: number }[]; name: string };
      const last = prices.bars.at(-1)!;
      await view.locator('#price-chart[data-ready=true]').waitFor();
      assert.equal(await view.locator('#price-chart').getAttribute('data-count'), String(prices.bars.length));
      // lightweight-charts draws on canvases: the candles' pane and the volume pane.
      assert.ok((await view.locator('#price-chart canvas').count()) >= 2);
      assert.equal(await view.locator('#price-caption').getAttribute('data-last-close'), String(last.close));
      assert.match((await view.locator('#price-caption').textContent())!, new RegExp(`Last bar ${last.date} · Close KRW ${grouped(last.close, 0)} · `));
      assert.match((await view.locator('#view-title').textContent())!, new RegExp(`${kr} · KR · KRW`));

      // The band overlay: get_valuation_band through the host; its p5, median and p95 PER times today's EPS (last close / current PER).
      const band = (await t.get(`${t.url}/api/public/v2/stocks/${kr}/valuation-band?type=per`, key)).body as { p5: number; median: number; p95: number; current: { value: number } };
      await view.locator('[data-control=band] button[data-value=per]').click();
      const levels = view.locator('#band-levels[data-type=per]');
      await levels.waitFor();
      const at = (multiple: number) => `KRW ${grouped((multiple * last.close) / band.current.value, 0)}`;
      assert.equal(await levels.textContent(), `PER price at today's PER denominator: p95 ${at(band.p95)} · Median ${at(band.median)} · p5 ${at(band.p5)}`);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, `apps-prices-${era}.png`) });
    });

    it(`${era}: screen_stocks shows a sortable table (Korean, dark); a row click asks get_stock_snapshot through the host and the service's admission, and the view shows that stock's snapshot`, async () => {
      const key = await t.newKey('paid');
      const args = { market: 'KR,US', sort: { field: 'marketCap', order: 'desc' }, limit: 8 };
      const { view } = await host({ key, era, tool: 'screen_stocks', args, theme: 'dark', locale: 'ko-KR', apps: true });
      const expected = (await t.get(`${t.url}/api/public/v2/screen?market=KR,US&sort=marketCap:desc&limit=8`, key)).body as { rows: { code: string; name: string; marketCap: number }[] };
      const codes = () => view.locator('#view-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code')));
      await view.locator('#view-table tbody tr').first().waitFor();
      assert.deepEqual(
        await codes(),
        expected.rows.map((r) => r.code),
      );
      assert.equal(await view.locator('html').getAttribute('data-theme'), 'dark');
      assert.equal(await view.locator('html').getAttribute('lang'), 'ko');
      // Sorting by a column: first click highest first (the answer's own order), the second lowest first.
      await view.locator('th button[data-sort=marketCap]').click();
      await view.locator('th button[data-sort=marketCap]').click();
      assert.deepEqual(
        await codes(),
        expected.rows.map((r) => r.code).reverse(),
      );
      assert.equal(await view.locator('th[data-col=marketCap]').getAttribute('aria-sort'), 'ascending');
      await page.screenshot({ path: join(ARTIFACTS, `apps-screen-${era}.png`) });

      // The row click: one tools/call of the host's, counted for its key (health itself is the other count).
      const target = expected.rows[0]!;
      const before = await callsToday(key);
      await view.locator(`#view-table tbody tr[data-code="${target.code}"]`).click();
      await view.locator('#snapshot').waitFor();
      assert.equal(await callsToday(key), before + 2);
      const snapshot = (await t.get(`${t.url}/api/public/v2/stocks/${target.code}/snapshot`, key)).body as { name: string; per: { value: number | null } } & { valuation: { per: { value: number | null } } };
      assert.match((await view.locator('#view-title').textContent())!, new RegExp(`^${snapshot.name} ${target.code}`));
      const per = snapshot.valuation.per.value;
      assert.equal(await view.locator('#snapshot tr[data-metric=per] td.num').first().textContent(), per === null ? '—' : `${grouped(per, 2)}x`);
      // Back to the table, as it was.
      await view.locator('#back').click();
      await view.locator('#view-table').waitFor();
      await page.screenshot({ path: join(ARTIFACTS, `apps-snapshot-${era}.png`) });
    });
  }

  it('2026-07-28: get_valuation_band, get_rankings, get_trade_total and get_sector_exports draw their answers (English, light)', async () => {
    const key = await t.newKey('paid');
    const run = (tool: string, args: Record<string, unknown>) => host({ key, era: '2026-07-28', tool, args, theme: 'light', locale: 'en-US', apps: true });

    let { view } = await run('get_valuation_band', { code: kr, type: 'pbr' });
    const band = (await t.get(`${t.url}/api/public/v2/stocks/${kr}/valuation-band?type=pbr`, key)).body as { daysUsed: number; from: string; to: string; years: { year: number }[]; current: { value: number } };
    await view.locator('#band-chart svg').waitFor();
    assert.deepEqual(
      await view.locator('#band-chart rect[data-year]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-year')))),
      band.years.map((y) => y.year),
    );
    assert.match((await view.locator('#band-caption').textContent())!, new RegExp(`^Current ${grouped(band.current.value, 2)}x · .* · Days used ${band.daysUsed} · ${band.from} – ${band.to}$`));

    ({ view } = await run('get_rankings', { market: 'KR,US', limit: 6 }));
    const rankings = (await t.get(`${t.url}/api/public/v2/rankings?market=KR,US&limit=6`, key)).body as { rows: { ticker: string }[] };
    await view.locator('#view-table tbody tr').first().waitFor();
    assert.deepEqual(
      await view.locator('#view-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code'))),
      rankings.rows.map((r) => r.ticker),
    );

    ({ view } = await run('get_trade_total', { from: '2020-01', to: '2020-12' }));
    await view.locator('#trade-chart[data-ready=true] canvas').first().waitFor();
    assert.equal(await view.locator('#trade-caption').getAttribute('data-last-month'), '2020-12');

    ({ view } = await run('get_sector_exports', { top: 4 }));
    const sectors = (await t.get(`${t.url}/api/public/v2/exports/sectors?top=4`, key)).body as { sectors: { sector: string }[] };
    await view.locator('#sectors-chart[data-ready=true] canvas').first().waitFor();
    assert.deepEqual(
      await view.locator('#sectors-legend li').evaluateAll((els) => els.map((e) => e.getAttribute('data-sector'))),
      sectors.sectors.map((s) => s.sector),
    );
    await page.screenshot({ path: join(ARTIFACTS, 'apps-sectors.png') });
  });

  it('a host without the extension is shown no view: the tool has no _meta and the host falls back to the text', async () => {
    const key = await t.newKey('paid');
    for (const era of ['2026-07-28', '2025-11-25'] as const) {
      const { answer } = await host({ key, era, tool: 'get_price_history', args: { code: kr }, theme: 'light', locale: 'en-US', apps: false });
      assert.deepEqual([answer.toolMeta, answer.resourceUri], [null, null], era);
    }
  });

  it('no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
