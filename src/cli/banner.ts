// What `serve` prints at start: the demo key it created (on stderr, the terminal's stream: stdout
// carries the JSON log lines), or how to create a key when there is none; every door with its URL;
// and the one-line hint for a port already in use. Pure text; src/cli/main.ts writes it.

import { isLoopbackHost } from '../http/loopback.js';

export interface BannerContext {
  /** The service's base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The HOST it was asked to listen on. */
  host: string;
  /** True when no real source is configured: the embedded demo universe is served. */
  demo: boolean;
  /** The key created at this start (the store had none), else null. */
  createdKey: string | null;
}

/**
 * The dashboard's address. In the demo on a loopback address, with a key created at this start,
 * it carries that key in the fragment (`#key=`): the browser never sends a fragment to a
 * server, and the page keeps the key and removes it from the address bar, so the dashboard
 * opens signed in. Never on another bind or with real sources, whose keys are not a demo's.
 */
export function dashboardUrl(ctx: BannerContext): string {
  const signIn = ctx.demo && ctx.createdKey !== null && isLoopbackHost(ctx.host);
  return signIn ? `${ctx.url}/#key=${encodeURIComponent(ctx.createdKey ?? '')}` : `${ctx.url}/`;
}

/** The demo key created at this start (stderr). */
export function keyBanner(key: string): string {
  return `\nDemo API key (free plan, for the demo universe; shown once; create more with: npm run cli -- keys create --plan free):\n${key}\n\n`;
}

/** The dashboard signed in with the demo key (stderr: it carries the key), or null. */
export function signInBanner(ctx: BannerContext): string | null {
  const url = dashboardUrl(ctx);
  return url === `${ctx.url}/` ? null : `Dashboard signed in with the demo key: ${url}\n`;
}

/** A start on a store with no active key (none is created for real sources, nor after the first). */
export const NO_KEY_BANNER = 'No active API key: create one with: npm run cli -- keys create --plan free|paid [--name N]\n';

/** Every door with its URL (stdout: no key in it). */
export function doorsBanner(ctx: Pick<BannerContext, 'url'>): string {
  return [
    `Listening on ${ctx.url}`,
    `  Dashboard  ${ctx.url}/  (asks once for an API key; the browser keeps it)`,
    `  REST API   ${ctx.url}/api/public/v2  (OpenAPI: ${ctx.url}/api/public/v2/openapi.json)`,
    `  MCP        POST ${ctx.url}/api/mcp`,
    `  Docs       ${ctx.url}/docs`,
    '',
  ].join('\n');
}

/** One line for a listen that failed because the address is taken, else null. */
export function listenFailureHint(err: unknown, host: string, port: number): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return `Port ${port} on ${host} is already in use (another copy of the service?). Stop it, or start on another port: PORT=${port === 8080 ? 8081 : port + 1} npm start`;
  }
  if (code === 'EACCES') return `Not allowed to listen on ${host}:${port} (ports below 1024 need privileges). Start on another port: PORT=8080 npm start`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine. Set HOST to one that is (default 127.0.0.1).`;
  return null;
}
