// A stdio MCP server for desktop assistants that only speak stdio. It forwards tools, resources
// and prompts to a running service's POST /api/mcp with the configured key, so the tools, their
// schemas and annotations, keys, quotas and answers are the service's own.
//
//   SERVICE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sk_live_... npm run mcp
//   (or: node bin/mcp-stdio.mjs, from any directory; no build step)

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../app.js';
import { RpcError } from '../http/mcp-errors.js';

export interface BridgeOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

type Forward = { method: string; params?: unknown };

export function createStdioBridge(options: BridgeOptions): Server {
  const doFetch = options.fetch ?? fetch;
  const endpoint = new URL('/api/mcp', options.baseUrl).toString();
  const server = new Server(
    { name: 'stock-data-service-stdio', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: 'Forwards to the stock data service at ' + options.baseUrl },
  );
  let nextId = 1;

  /** One JSON-RPC request to the service: its result, or its JSON-RPC error rethrown as is. */
  async function forward({ method, params }: Forward): Promise<Result> {
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new RpcError(ErrorCode.InternalError, `the service at ${options.baseUrl} did not answer: ${(err as Error).name}`);
    }
    const body = (await res.json().catch(() => null)) as { result?: Result; error?: { code: number; message: string; data?: unknown } } | null;
    if (body?.result) return body.result;
    if (body?.error) throw new RpcError(body.error.code, body.error.message, body.error.data);
    throw new RpcError(ErrorCode.InternalError, `the service answered HTTP ${res.status}`);
  }

  // tools/call answers a refusal (quota, an unreachable service) as a tool result the model can
  // read, as before; everything else passes the service's answer or error through.
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      return (await forward(request)) as CallToolResult;
    } catch (err) {
      return { content: [{ type: 'text', text: (err as Error).message }], isError: true };
    }
  });
  for (const schema of [ListToolsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema, ListPromptsRequestSchema, GetPromptRequestSchema]) {
    server.setRequestHandler(schema, (request: Forward) => forward(request) as never);
  }
  return server;
}

export async function runStdioBridge(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const baseUrl = env.SERVICE_URL ?? 'http://127.0.0.1:8080';
  const apiKey = env.SERVICE_API_KEY;
  if (!apiKey) {
    process.stderr.write('set SERVICE_API_KEY (and SERVICE_URL, default http://127.0.0.1:8080)\n');
    process.exit(2);
  }
  await createStdioBridge({ baseUrl, apiKey }).connect(new StdioServerTransport());
}

// Run when executed directly (`node --import tsx src/cli/mcp-stdio.ts`, or the built file).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '')) {
  await runStdioBridge();
}
