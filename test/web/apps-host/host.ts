// A minimal MCP Apps host for the Chromium test (test/web/apps.test.ts), built on the extension's
// host library (AppBridge) and the official client: it connects to the service, lists the tools,
// reads the `ui://` resource a tool declares, shows it in a sandboxed frame (scripts only, an
// opaque origin: no storage, no reach into this page), calls the tool and hands the view its
// input and result. The view's own tools/call requests go through the bridge to this client,
// hence to the service like any call of the host.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { HostAnswer, HostRun } from './types.js';

const EXTENSION = 'io.modelcontextprotocol/ui';

async function run(o: HostRun): Promise<HostAnswer> {
  const info = { name: 'apps-test-host', version: '1.0.0' };
  const capabilities = o.apps ? { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } : {};
  const client =
    o.era === '2026-07-28'
      ? new Client(info, { capabilities, versionNegotiation: { mode: { pin: o.era } } })
      : new Client(info, { capabilities, supportedProtocolVersions: [o.era] });
  await client.connect(new StreamableHTTPClientTransport(new URL(o.endpoint), { requestInit: { headers: { authorization: `Bearer ${o.key}` } } }));
  // The 2026 revision carries the capabilities on every request; a 2025-era host sends them in
  // each request's `_meta` too, since a stateless server keeps nothing from initialize.
  const meta = o.apps && o.era !== '2026-07-28' ? { _meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities } } : {};
  const { tools } = await client.listTools(meta);
  const tool = tools.find((t) => t.name === o.tool);
  if (tool === undefined) throw new Error(`no tool ${o.tool}`);
  const answer: HostAnswer = { era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion(), toolMeta: tool._meta ?? null, resourceUri: null, mimeType: null };
  const uri = getToolUiResourceUri(tool);
  if (uri === undefined) return answer;
  const resource = await client.readResource({ uri, ...meta });
  const content = resource.contents[0];
  if (content === undefined || !('text' in content)) throw new Error(`no text in ${uri}`);
  answer.resourceUri = uri;
  answer.mimeType = content.mimeType ?? null;

  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width: 900px; height: 760px; border: 1px solid #ccc';
  const bridge = new AppBridge(client, { name: 'apps-test-host', version: '1.0.0' }, { serverTools: {}, serverResources: {} }, { hostContext: { theme: o.theme, locale: o.locale, toolInfo: { tool }, displayMode: 'inline' } });
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  document.body.append(frame);
  // The transport listens before the view's first message: connect, then load the view.
  const contentWindow = frame.contentWindow;
  if (contentWindow === null) throw new Error('no frame window');
  await bridge.connect(new PostMessageTransport(contentWindow, contentWindow));
  frame.srcdoc = content.text;
  await initialized;
  await bridge.sendToolInput({ arguments: o.args });
  const result = await client.callTool({ name: o.tool, arguments: o.args });
  await bridge.sendToolResult(result);
  return answer;
}

(window as unknown as { runHost: typeof run }).runHost = run;
