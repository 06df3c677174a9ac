// MCP Apps (the official extension `io.modelcontextprotocol/ui`): charts and tables a host draws
// in the conversation from a tool's own answer. One view (web/views, built by `npm run build:web`
// into one self-contained HTML file) serves every tool it draws; it is declared on those tools
// (`_meta.ui.resourceUri`) and listed and read as the `ui://` resource only for a client that says
// it renders MCP Apps. Any other client gets exactly the tools, resources and answers it gets
// without this file: the tool results are the same for everyone (the view reads their
// `structuredContent` through the host's bridge).
//
// The door is stateless, so the capability is read from each request: the 2026-07-28 revision's
// per-request envelope carries the client's capabilities (`_meta` key
// `io.modelcontextprotocol/clientCapabilities`); a 2025-era host, whose initialize a stateless
// server cannot remember, sends the same `_meta` key on its tools/list and resources/read.

import { readFileSync } from 'node:fs';
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { CacheHint, McpServer } from '@modelcontextprotocol/server';

/** The one view's resource. */
export const VIEW_URI = 'ui://stock-data/view.html';

/** The tools the view draws: candles and volume, the band, the tables, the snapshot a row opens, the export lines. */
export const VIEW_TOOLS: ReadonlySet<string> = new Set([
  'get_price_history',
  'get_valuation_band',
  'get_rankings',
  'screen_stocks',
  'get_stock_snapshot',
  'get_trade_total',
  'get_sector_exports',
]);

/** The key of the client's capabilities in a request's `_meta` (the 2026-07-28 envelope's). */
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * Whether a request comes from a client that renders MCP Apps: its `_meta` declares the
 * extension with the HTML view type (`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`).
 */
export function rendersApps(message: unknown): boolean {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  return appsMetaOf(params?._meta?.[CLIENT_CAPABILITIES_KEY]) !== null;
}

/**
 * The `_meta` a forwarding client (the stdio bridge) adds to its requests for a client whose
 * capabilities (`initialize`'s, or a 2026 envelope's) declare that it renders this view; null
 * for any other client.
 */
export function appsMetaOf(capabilities: unknown): Record<string, unknown> | null {
  if (capabilities === null || typeof capabilities !== 'object') return null;
  const ui = getUiCapability(capabilities);
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(RESOURCE_MIME_TYPE) ? { [CLIENT_CAPABILITIES_KEY]: { extensions: { [EXTENSION_ID]: ui } } } : null;
}

/** The tool's `_meta` for an Apps client (both spellings, as the extension's registerAppTool writes them), or undefined. */
export function viewMeta(tool: string): Record<string, unknown> | undefined {
  return VIEW_TOOLS.has(tool) ? { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI } : undefined;
}

/** The server capability an Apps client is told of (server/discover, initialize). */
export const APPS_SERVER_EXTENSION = { [EXTENSION_ID]: {} };

/** The built view: web/views/dist/index.html beside src/ (and beside dist/ once compiled). */
const VIEW_FILE = new URL('../../web/views/dist/index.html', import.meta.url);
let viewHtml: string | null = null;

/** The view's HTML, read once; null while it is not built (the view is then not declared: the host shows the text). */
export function builtView(): string | null {
  if (viewHtml === null) {
    try {
      viewHtml = readFileSync(VIEW_FILE, 'utf8');
    } catch {
      return null;
    }
  }
  return viewHtml;
}

/** Registers the view's `ui://` resource on an Apps client's server. */
export function registerView(server: McpServer, html: string, cacheHint: CacheHint): void {
  server.registerResource(
    'stock_data_view',
    VIEW_URI,
    {
      title: 'Stock data charts and tables',
      description: 'The MCP Apps view of get_price_history, get_valuation_band, get_rankings, screen_stocks, get_stock_snapshot, get_trade_total and get_sector_exports: self-contained, no network access.',
      mimeType: RESOURCE_MIME_TYPE,
      cacheHint,
      // The view never fetches: its data comes from the tool result through the host.
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    },
    () => ({ contents: [{ uri: VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: html }] }),
  );
}
