// The web dashboard at `/`: the Vite build in web/dist, served as static files. The page talks
// to the public REST API like any other client (with the key the user enters), so this file
// only serves files; it knows nothing about the API.
//
// Assets carry a content hash in their names (web/dist/assets/index-3f2a1c.js), so they are
// cached for a year and marked immutable; index.html names the current hashes and is served
// with no-cache so a new build is picked up on the next load.

import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebOptions {
  /** The built dashboard; default web/dist beside src/ (and beside dist/ once compiled). */
  distDir?: string;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Same-origin only: the page loads its own scripts and styles and calls only this server. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Chart libraries and the percentile bars set element.style; no inline <style> blocks.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body>
<h1>The web dashboard is not built</h1>
<p>Run <code>npm run build:web</code> and restart the server. The API is available at
<a href="/api/public/v2/openapi.json">/api/public/v2/openapi.json</a> and documented at <a href="/docs">/docs</a>.</p>
</body>
</html>
`;

export async function webRoutes(app: FastifyInstance, options: WebOptions = {}): Promise<void> {
  const distDir = options.distDir ?? fileURLToPath(new URL('../../web/dist/', import.meta.url));
  // Read once at start: the page and its assets are one build, so they are swapped together
  // by a restart rather than half-picked-up from a build that is still being written.
  const indexHtml = await readFile(join(distDir, 'index.html'), 'utf8').catch(() => null);
  const assetsDir = join(distDir, 'assets');

  if (indexHtml !== null && existsSync(assetsDir)) {
    await app.register(fastifyStatic, {
      root: assetsDir,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      maxAge: YEAR_MS,
      immutable: true,
    });
  }

  app.get('/', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    reply.header('x-content-type-options', 'nosniff');
    if (indexHtml === null) return reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    return reply.type('text/html; charset=utf-8').send(indexHtml);
  });
}
