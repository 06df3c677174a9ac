// MCP Apps on the MCP door (src/http/mcp-apps.ts), both protocol eras over raw JSON-RPC through
// Fastify's inject(): a client that declares the extension in its request's `_meta` (the 2026
// envelope's clientCapabilities, or the same key on a 2025-era request) is shown the view on the
// tools it draws and can read it as a `ui://` resource; a client that does not sees the lists
// and the answers it sees without the extension, and every tool call answers the same bytes to
// both. The view itself, in a host, is test/web/apps.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtView, VIEW_TOOLS, VIEW_URI } from '../../src/http/mcp-apps.js';
import { TOOLS } from '../../src/tools/registry.js';
import { ensureViewBuilt } from '../support/browser.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;
type Rpc = { id: unknown; result?: Json; error?: { code: number; message: string } };

const MIME = 'text/html;profile=mcp-app';
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } } };
/** A client that knows the extension's name but renders another type: not an Apps client of this view. */
const OTHER_TYPE = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html+skybridge'] } } };

describe('MCP Apps: the view is declared to a client that renders it, and to no other', () => {
  let t: TestServer;
  let key: string;
  let kr: string;
  before(async () => {
    await ensureViewBuilt();
    t = await startTestApp();
    key = await t.newKey('paid');
    const all = (await t.get(`${t.url}/api/public/v2/rankings?market=KR&limit=5`, key)).body as { rows: { ticker: string }[] };
    kr = all.rows[0]!.ticker;
  });
  after(() => t?.close());

  /** One JSON-RPC request in `era`, the client's capabilities in its `_meta` (none: no `_meta` in 2025, an empty one in the 2026 envelope). */
  async function call(era: '2025' | '2026', id: number, method: string, params: Json, capabilities: Json | null): Promise<{ status: number; text: string; body: Rpc }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    let meta: Json | undefined;
    if (era === '2026') {
      meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities ?? {}, 'io.modelcontextprotocol/clientInfo': { name: 'apps-test', version: '1' } };
      Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }, typeof params.name === 'string' ? { 'mcp-name': params.name } : typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {});
    } else if (capabilities !== null) {
      meta = { 'io.modelcontextprotocol/clientCapabilities': capabilities };
    }
    const body = { jsonrpc: '2.0', id, method, params: meta === undefined ? params : { ...params, _meta: meta } };
    const res = await t.fetch(`${t.url}/api/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Rpc };
  }
  const tools = (r: Rpc) => (r.result as { tools: Json[] }).tools;
  const resources = (r: Rpc) => (r.result as { resources: Json[] }).resources;

  it('the view is built (npm run build:web) and served as the single HTML file, no outside reference to load', () => {
    const html = builtView();
    assert.ok(html !== null);
    assert.match(html, /^<!doctype html>/i);
    // One inline module script and inline styles: nothing fetched from anywhere.
    assert.equal(/<script[^>]+src=/i.test(html), false);
    assert.equal(/<link[^>]+rel="?stylesheet/i.test(html), false);
  });

  for (const era of ['2025', '2026'] as const) {
    describe(`${era === '2025' ? '2025-11-25 (initialize era)' : '2026-07-28'}`, () => {
      it('tools/list: the seven drawn tools carry _meta.ui.resourceUri for an Apps client; without the capability (or with another view type) no tool has _meta and the list is otherwise identical', async () => {
        const plain = await call(era, 1, 'tools/list', {}, null);
        const other = await call(era, 2, 'tools/list', {}, OTHER_TYPE);
        const apps = await call(era, 3, 'tools/list', {}, APPS);
        assert.equal(plain.status, 200);
        assert.deepEqual(
          tools(plain.body).map((tool) => tool.name),
          TOOLS.map((tool) => tool.name),
        );
        for (const tool of tools(plain.body)) assert.equal('_meta' in tool, false, String(tool.name));
        // Another view type is no Apps client of this view: its list is the plain list, byte for byte (ids aside).
        assert.equal(other.text.replace('"id":2', '"id":1'), plain.text);
        const declared = tools(apps.body).filter((tool) => tool._meta !== undefined);
        assert.deepEqual(declared.map((tool) => tool.name).sort(), [...VIEW_TOOLS].sort());
        for (const tool of declared) assert.deepEqual(tool._meta, { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
        // Apart from the _meta, the Apps client's list is the plain one.
        const stripped = tools(apps.body).map(({ _meta: _ignored, ...rest }) => rest);
        assert.deepEqual(stripped, tools(plain.body));
      });

      it('resources/list and resources/read: the ui:// resource exists for an Apps client only', async () => {
        const plain = await call(era, 1, 'resources/list', {}, null);
        const apps = await call(era, 2, 'resources/list', {}, APPS);
        assert.equal(resources(plain.body).some((r) => String(r.uri).startsWith('ui://')), false);
        const view = resources(apps.body).filter((r) => String(r.uri).startsWith('ui://'));
        assert.deepEqual(
          view.map((r) => [r.uri, r.mimeType]),
          [[VIEW_URI, MIME]],
        );
        assert.deepEqual(
          resources(apps.body).filter((r) => r !== view[0]),
          resources(plain.body),
        );
        const read = await call(era, 3, 'resources/read', { uri: VIEW_URI }, APPS);
        const contents = (read.body.result as { contents: { uri: string; mimeType: string; text: string }[] }).contents;
        assert.deepEqual(
          contents.map((c) => [c.uri, c.mimeType, c.text]),
          [[VIEW_URI, MIME, builtView()]],
        );
        // Without the capability the view is not a resource of this server.
        const refused = await call(era, 4, 'resources/read', { uri: VIEW_URI }, null);
        assert.ok(refused.body.error !== undefined || (refused.body.result as Json).isError === true, refused.text);
      });

      it('tools/call answers the same bytes with or without the capability', async () => {
        const args = { code: kr, interval: 'month', limit: 12 };
        const plain = await call(era, 7, 'tools/call', { name: 'get_price_history', arguments: args }, null);
        const apps = await call(era, 7, 'tools/call', { name: 'get_price_history', arguments: args }, APPS);
        assert.equal(plain.status, 200);
        assert.ok((plain.body.result as Json).structuredContent !== undefined);
        assert.equal(apps.text, plain.text);
      });

      it('the server announces the extension to an Apps client only', async () => {
        const method = era === '2026' ? 'server/discover' : 'initialize';
        const params = era === '2026' ? {} : { protocolVersion: '2025-11-25', capabilities: APPS, clientInfo: { name: 'apps-test', version: '1' } };
        const plain = await call(era, 1, method, era === '2026' ? params : { ...params, capabilities: {} }, null);
        const apps = await call(era, 1, method, params, APPS);
        const capabilities = (r: Rpc) => (r.result as { capabilities: Json }).capabilities;
        assert.equal('extensions' in capabilities(plain.body), false);
        assert.deepEqual(capabilities(apps.body).extensions, { 'io.modelcontextprotocol/ui': {} });
      });
    });
  }
});
