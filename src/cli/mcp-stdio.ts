// A stdio MCP server for desktop assistants that only speak stdio. It forwards tools, resources
// (and their templates), prompts and completions to a running service's POST /api/mcp with the configured key, so the tools, their
// schemas and annotations, keys, quotas and answers are the service's own.
//
//   SERVICE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sk_live_... npm run mcp
//   (or: node bin/mcp-stdio.mjs, from any directory; no build step)

import { Client, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Result } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { VERSION } from '../compose.js';
import { appsMetaOf } from '../http/mcp-apps.js';

export interface BridgeOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

type Forward = { method: string; params?: unknown };

/** The methods other than tools/call passed to the service as they are. */
const FORWARDED = ['tools/list', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete'] as const;

/** The service's results are handed on as they came: the stdio client judges them, not the bridge. */
const AS_SENT: StandardSchemaV1<unknown, Result> = { '~standard': { version: 1, vendor: 'stock-data-service', validate: (value) => ({ value: value as Result }) } };

export function createStdioBridge(options: BridgeOptions): Server {
  const server = new Server(
    { name: 'stock-data-service-stdio', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} }, instructions: 'Forwards to the stock data service at ' + options.baseUrl },
  );
  // The service, through the SDK's client over its Streamable HTTP transport: a 2025-era client
  // (initialize on the first forwarded request), the key on every POST.
  const client = new Client({ name: 'stock-data-service-stdio', version: VERSION });
  let connected: Promise<void> | null = null;
  const connect = (): Promise<void> => {
    const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', options.baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    // A failed connect is tried again at the next request.
    return client.connect(transport, { timeout: timeoutOf(options) }).catch((err: unknown) => {
      connected = null;
      throw err;
    });
  };
  server.onclose = () => void client.close().catch(() => undefined);

  /**
   * One request to the service: its result, or its JSON-RPC error rethrown as is. A stdio client
   * that renders MCP Apps (its initialize's capabilities, or its 2026 envelope's) is named in
   * the `_meta` of what is forwarded, so the service declares its view to it (src/http/mcp-apps.ts).
   */
  async function forward({ method, params }: Forward, envelope?: Record<string, unknown>): Promise<Result> {
    try {
      await (connected ??= connect());
      const apps = method === 'tools/call' ? null : appsMetaOf(envelope?.['io.modelcontextprotocol/clientCapabilities'] ?? server.getClientCapabilities());
      const sent = params === undefined ? undefined : withoutEnvelope(params);
      const forwarded = apps === null ? sent : { ...(sent as Record<string, unknown> | undefined), _meta: { ...(sent as { _meta?: Record<string, unknown> } | undefined)?._meta, ...apps } };
      return await client.request({ method, ...(forwarded === undefined ? {} : { params: forwarded }) } as never, AS_SENT, { timeout: timeoutOf(options) });
    } catch (err) {
      throw serviceError(err, options.baseUrl);
    }
  }

  // tools/call answers a refusal (quota, an unreachable service) as a tool result the model can
  // read; everything else passes the service's answer or error through.
  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    try {
      return (await forward(request)) as CallToolResult;
    } catch (err) {
      return { content: [{ type: 'text', text: (err as Error).message }], isError: true };
    }
  });
  // The SDK lifts a 2026 request's envelope out of its `_meta` (ctx.mcpReq.envelope).
  for (const method of FORWARDED) server.setRequestHandler(method, (request: Forward, ctx) => forward(request, ctx.mcpReq.envelope as Record<string, unknown> | undefined) as never);
  return server;
}

const timeoutOf = (options: BridgeOptions): number => options.timeoutMs ?? 30_000;

/**
 * What the stdio client is told when a forwarded request fails: the service's JSON-RPC error as
 * it is (a refusal under HTTP 401, 429 or 503 carries one as its body), else what went wrong
 * between the bridge and the service.
 */
function serviceError(err: unknown, baseUrl: string): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof SdkHttpError) {
    const rpc = rpcErrorIn(err.data?.text);
    if (rpc !== null) return new ProtocolError(rpc.code, rpc.message, rpc.data);
    return new ProtocolError(ProtocolErrorCode.InternalError, `the service answered HTTP ${err.data?.status ?? 'with an error'}`);
  }
  const reason = err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout ? 'no answer in time' : fetchFailure(err);
  return new ProtocolError(ProtocolErrorCode.InternalError, `the service at ${baseUrl} did not answer: ${reason}`);
}

/** The JSON-RPC error of an HTTP body, or null. */
function rpcErrorIn(text: unknown): { code: number; message: string; data?: unknown } | null {
  if (typeof text !== 'string') return null;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
    const error = body?.error;
    return error !== undefined && typeof error.code === 'number' && typeof error.message === 'string' ? { code: error.code, message: error.message, data: error.data } : null;
  } catch {
    return null;
  }
}

/**
 * A request's params as the bridge forwards them: without the 2026-07-28 per-request envelope
 * (`io.modelcontextprotocol/*` keys of `_meta`), which is about the stdio client's exchange
 * with the bridge; the bridge calls the service as a bare 2025-era client.
 */
function withoutEnvelope(params: unknown): unknown {
  if (params === null || typeof params !== 'object' || !('_meta' in params)) return params;
  const { _meta: meta, ...rest } = params as { _meta?: Record<string, unknown> };
  const kept = Object.fromEntries(Object.entries(meta ?? {}).filter(([key]) => !key.startsWith('io.modelcontextprotocol/')));
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept };
}

/** Why a fetch threw, in words: the system error under undici's `TypeError: fetch failed`. */
export function fetchFailure(err: unknown): string {
  const error = err as Error & { cause?: { code?: unknown; message?: unknown } };
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'no answer in time';
  const code = typeof error.cause?.code === 'string' ? error.cause.code : null;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there: is the service running? `npm start`)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return code ?? (typeof error.cause?.message === 'string' ? error.cause.message : error.message);
  }
}

/**
 * Before the bridge takes its first message: the service is there and takes the key. A
 * `ping` (free, needs a valid key) to POST /api/mcp; null when it answers, else what is wrong,
 * in one line: a SERVICE_URL that is no URL, refused or unanswered connections, a server that
 * is not this service (no JSON-RPC at /api/mcp), a refused key.
 */
export async function checkService(options: BridgeOptions): Promise<string | null> {
  let endpoint: URL;
  try {
    endpoint = new URL('/api/mcp', options.baseUrl);
  } catch {
    return `SERVICE_URL ${JSON.stringify(options.baseUrl)} is not a URL (expected the service's address, e.g. http://127.0.0.1:8080)`;
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    return `SERVICE_URL ${options.baseUrl} is not an http(s) URL (expected the service's address, e.g. http://127.0.0.1:8080)`;
  }
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (err) {
    return `cannot reach the service at ${endpoint.origin}: ${fetchFailure(err)}`;
  }
  const body = (await res.json().catch(() => null)) as { jsonrpc?: unknown; result?: unknown; error?: { message?: unknown } } | null;
  if (res.status === 401 || res.status === 403) {
    const detail = typeof body?.error?.message === 'string' ? ` (${body.error.message})` : '';
    return `the service at ${endpoint.origin} refused the key ${options.apiKey.slice(0, 16)}...${detail}: check SERVICE_API_KEY (\`npm run cli -- keys list\` shows the active keys' prefixes)`;
  }
  if (body?.jsonrpc !== '2.0') {
    return `${endpoint.href} answered HTTP ${res.status} but is not the stock data service's MCP endpoint: check SERVICE_URL (the service's base address, e.g. http://127.0.0.1:8080)`;
  }
  if (res.status === 429) return null; // over the quota or the burst: the key is good, calls say when to retry
  if (body.error !== undefined) return `the service at ${endpoint.origin} answered ping with an error: ${String(body.error.message)}`;
  return null;
}

export async function runStdioBridge(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const baseUrl = env.SERVICE_URL ?? 'http://127.0.0.1:8080';
  const apiKey = env.SERVICE_API_KEY;
  if (!apiKey) {
    process.stderr.write('stock-data-mcp: set SERVICE_API_KEY (and SERVICE_URL, default http://127.0.0.1:8080)\n');
    process.exit(2);
  }
  // An assistant shows the bridge's stderr in its log: one line saying what is wrong, and an
  // exit, rather than a bridge that connects and fails at its first call.
  const problem = await checkService({ baseUrl, apiKey });
  if (problem !== null) {
    process.stderr.write(`stock-data-mcp: ${problem}\n`);
    process.exit(1);
  }
  // The SDK serves both protocol eras on stdio (initialize, or server/discover), a bridge instance per connection.
  serveStdio(() => createStdioBridge({ baseUrl, apiKey }));
}

// Run when executed directly (`node --import tsx src/cli/mcp-stdio.ts`, or the built file).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '')) {
  await runStdioBridge();
}
