// Headless Chromium for the dashboard's tests (test/web): the system's /usr/bin/chromium driven
// by playwright-core, on the page Vite builds into web/dist.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A browser suite's `skip`: false, or why it skips (CI installs chromium, see .ci/run). */
export const skipBrowser: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium); browser tests skipped`;

const WEB = join(import.meta.dirname, '..', '..', 'web');

/**
 * Builds web/dist and the MCP Apps view when missing or older than a file of web/src (`npm test`
 * builds them first; a single-file run after an edit of the page gets the page as edited).
 */
export async function ensureWebBuilt(): Promise<void> {
  if (!builtSince(join(WEB, 'dist', 'index.html'))) {
    const { build } = await import('vite');
    await build({ root: WEB, logLevel: 'warn', build: { emptyOutDir: true } });
  }
  await ensureViewBuilt();
}

/** Builds the MCP Apps view (web/views/dist/index.html, from web/src as well) the same way. */
export async function ensureViewBuilt(): Promise<void> {
  if (builtSince(join(WEB, 'views', 'dist', 'index.html'))) return;
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'views', 'vite.config.mjs') });
}

/** Whether `file` exists and is newer than every file of web/src and web/views (its build's sources). */
function builtSince(file: string): boolean {
  const built = existsSync(file) ? statSync(file).mtimeMs : 0;
  if (built === 0) return false;
  const sources = ['src', 'views'].flatMap((dir) =>
    readdirSync(join(WEB, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !join(e.parentPath, e.name).includes(`${join(WEB, 'views', 'dist')}`)),
  );
  return sources.every((e) => statSync(join(e.parentPath, e.name)).mtimeMs < built);
}

export interface OpenPage {
  browser: Browser;
  page: Page;
  /** The page's uncaught errors, in order: a suite asserts there were none. */
  pageErrors: string[];
}

/**
 * Launches headless Chromium with one page of this locale and window size, 10 s for each wait.
 * The caller closes `browser`.
 */
export async function openPage(o: { locale: string; width: number; height: number }): Promise<OpenPage> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ locale: o.locale, viewport: { width: o.width, height: o.height } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  return { browser, page, pageErrors };
}
