// The human docs page at `/docs`: Swagger UI over the OpenAPI document, served from this server.
// Only the two files the page loads are served from the swagger-ui-dist package (its stock
// index.html, initializer and OAuth redirect page are not: the stock initializer loads a foreign
// site's document on this origin, where the dashboard keeps the key), and the page runs under a
// Content-Security-Policy that lets it load and call only this origin.

import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The files of swagger-ui-dist the page uses, by the name it is served under, with their types. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const INIT_SCRIPT = "window.ui = SwaggerUIBundle({ url: '/api/public/v2/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });";

/**
 * The page's policy: its scripts are the bundle and the one inline call above (by its hash);
 * Swagger UI sets inline styles and draws icons as data: images; "Try it out" calls this origin.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(INIT_SCRIPT).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>${INIT_SCRIPT}</script>
</body>
</html>
`;

const WEEK_SECONDS = 7 * 24 * 3600;

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // Read once at start (about 1.5 MB): the package does not change under a running process.
  const assets = new Map<string, Buffer>();
  for (const name of Object.keys(DOCS_ASSETS)) assets.set(name, await readFile(join(dir, name)));

  app.get('/docs', async (_request, reply) =>
    reply.header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(DOCS_PAGE),
  );
  for (const [name, type] of Object.entries(DOCS_ASSETS)) {
    const body = assets.get(name);
    app.get(`/docs/assets/${name}`, async (_request, reply) => reply.header('cache-control', `public, max-age=${WEEK_SECONDS}`).type(type).send(body));
  }
}
