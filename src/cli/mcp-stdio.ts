#!/usr/bin/env node
// A stdio MCP server for desktop assistants that only speak stdio. It lists the same nine tools
// (from the same registry and schemas) and forwards each tools/call to a running service's
// POST /api/mcp with the configured key, so keys, quotas and results are the service's own.
//
//   SERVICE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sk_live_... node dist/cli/mcp-stdio.js

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../app.js';
import { jsonSchema } from '../http/openapi.js';
import { TOOLS } from '../tools/registry.js';

export interface BridgeOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export function createStdioBridge(options: BridgeOptions): Server {
  const doFetch = options.fetch ?? fetch;
  const endpoint = new URL('/api/mcp', options.baseUrl).toString();
  const server = new Server({ name: 'stock-data-service-stdio', version: VERSION }, { capabilities: { tools: {} } });
  let nextId = 1;

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: jsonSchema(t.input, 'input') as { type: 'object' },
      outputSchema: jsonSchema(t.output, 'output') as { type: 'object' },
      annotations: { readOnlyHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const fail = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: request.params }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      return fail(`the service at ${options.baseUrl} did not answer: ${(err as Error).name}`);
    }
    const body = (await res.json().catch(() => null)) as { result?: CallToolResult; error?: { message: string } } | null;
    if (body?.result) return body.result;
    return fail(body?.error?.message ?? `the service answered HTTP ${res.status}`);
  });
  return server;
}

// Run when executed directly (not when imported by a test).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '')) {
  const baseUrl = process.env.SERVICE_URL ?? 'http://127.0.0.1:8080';
  const apiKey = process.env.SERVICE_API_KEY;
  if (!apiKey) {
    process.stderr.write('set SERVICE_API_KEY (and SERVICE_URL, default http://127.0.0.1:8080)\n');
    process.exit(2);
  }
  await createStdioBridge({ baseUrl, apiKey }).connect(new StdioServerTransport());
}
