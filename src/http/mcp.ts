// The JSON-RPC 2.0 / MCP door: POST /api/mcp, Streamable HTTP in stateless JSON-response
// mode over the same tool registry as REST.
//
// Protocol constants and error codes come from the official SDK. The dispatch is our own,
// because the SDK's server transport is stricter than the spec this service publishes: a bare
// `curl` call (no Accept header, no initialize first) must get a plain JSON answer, JSON-RPC
// batches must be answered as arrays, and every tools/call must pass the same key, quota and
// response cache as a REST call. Real MCP clients (the SDK's StreamableHTTPClientTransport,
// MCP Inspector) are proven against this endpoint in test/http/mcp.test.ts.

import { ErrorCode, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../access/access.js';
import type { Clock } from '../access/clock.js';
import { mcpToolResult } from '../tools/budget.js';
import { ApiError } from '../tools/errors.js';
import { parseArgs } from '../tools/params.js';
import { TOOLS, toolByName } from '../tools/registry.js';
import { admitCall, outageError, rateLimitHeaders, type Gate } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { jsonSchema } from './openapi.js';

export interface McpDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
  maxBatch: number;
  allowedOrigins: readonly string[];
  version: string;
}

/** Server-defined JSON-RPC error codes (the -32000..-32099 range). */
export const MCP_ERRORS = {
  unauthorized: -32001,
  forbidden: -32003,
  quota: -32029,
  dataUnavailable: -32004,
  /** The database or Redis is away: HTTP 503 with Retry-After (docs/deploy.md). */
  serviceUnavailable: -32053,
} as const;

type Id = string | number | null;

interface Incoming {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  jsonrpc?: unknown;
  result?: unknown;
  error?: unknown;
}

/** A serialised JSON-RPC response, or null for a message that gets none (a notification). */
type Answer = string | null;

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

const encodeId = (id: Id): string => JSON.stringify(id);
const errorAnswer = (id: Id, code: number, message: string, data?: unknown): string =>
  `{"jsonrpc":"2.0","id":${encodeId(id)},"error":${JSON.stringify({ code, message, ...(data === undefined ? {} : { data }) })}}`;
const resultAnswer = (id: Id, result: string): string => `{"jsonrpc":"2.0","id":${encodeId(id)},"result":${result}}`;

const toolResultError = (message: string): string => JSON.stringify({ content: [{ type: 'text', text: message }], isError: true });

function validId(id: unknown): id is string | number {
  return (typeof id === 'string' && id.length <= 200) || (typeof id === 'number' && Number.isFinite(id));
}

export async function mcpRoutes(app: FastifyInstance, deps: McpDeps): Promise<void> {
  // The body is read as text whatever its content type, so malformed JSON becomes the
  // JSON-RPC parse error (-32700) rather than a framework error page.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const toolsList = JSON.stringify({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: jsonSchema(t.input, 'input'),
      outputSchema: jsonSchema(t.output, 'output'),
      annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .type('application/json')
      .send(errorAnswer(null, ErrorCode.ConnectionClosed, 'this endpoint is stateless: POST JSON-RPC messages; no SSE stream or session'));
  app.get('/api/mcp', notAllowed);
  app.delete('/api/mcp', notAllowed);

  app.post('/api/mcp', async (request, reply) => {
    reply.type('application/json');
    const origin = request.headers.origin;
    if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin) && !deps.allowedOrigins.includes(origin)) {
      // DNS-rebinding protection: a browser page from a foreign origin may not call us.
      return reply.code(403).send(errorAnswer(null, MCP_ERRORS.forbidden, 'origin not allowed'));
    }

    let payload: unknown;
    try {
      payload = JSON.parse(typeof request.body === 'string' ? request.body : '');
    } catch {
      return reply.code(400).send(errorAnswer(null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'));
    }
    const batch = Array.isArray(payload);
    const messages: unknown[] = batch ? (payload as unknown[]) : [payload];
    if (messages.length === 0) return reply.code(400).send(errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid Request: empty batch'));
    if (messages.length > deps.maxBatch) {
      return reply.code(400).send(errorAnswer(null, ErrorCode.InvalidRequest, `Invalid Request: at most ${deps.maxBatch} messages per batch`));
    }

    // Every request carries a key. A well-formed unknown or revoked key may still ask health
    // (DESIGN.md 4); anything else with it is refused like a missing key.
    let auth: AuthResult;
    try {
      auth = await deps.access.authenticate(request.headers.authorization);
    } catch (err) {
      const outage = outageError(err);
      if (outage === null) throw err;
      return unavailable(reply, null, outage);
    }
    const onlyHealthCalls = messages.every((m) => isHealthCall(m));
    if (!auth.ok && (auth.why === 'missing' || !onlyHealthCalls)) {
      const detail = auth.why === 'missing' ? 'send a valid API key as Authorization: Bearer <key>' : 'the API key is not accepted';
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="api", error="invalid_token"')
        .send(errorAnswer(null, MCP_ERRORS.unauthorized, `Unauthorized: ${detail}`));
    }
    if (auth.ok) request.keyPrefix = auth.caller.prefix;

    const answers: Answer[] = [];
    let refusal: ApiError | null = null;
    for (const message of messages) {
      let outcome: { answer: Answer; refusal: ApiError | null };
      try {
        outcome = await answer(message, auth, request, reply, deps, toolsList);
      } catch (err) {
        // Counting the call needs the database or Redis: without it nothing is answered.
        const outage = outageError(err);
        if (outage === null) throw err;
        return unavailable(reply, null, outage);
      }
      answers.push(outcome.answer);
      refusal ??= outcome.refusal;
    }
    const replies = answers.filter((a): a is string => a !== null);
    if (replies.length === 0) return reply.code(202).send();
    // A single refused call is an HTTP 429 (503 when a dependency is away) with the JSON-RPC
    // error as its body.
    if (!batch && refusal !== null) {
      reply.code(refusal.status === 503 ? 503 : 429).header('retry-after', String(refusal.extra.retryAfter ?? 1));
    }
    return reply.send(batch ? `[${replies.join(',')}]` : replies[0]);
  });
}

function unavailable(reply: FastifyReply, id: Id, error: ApiError): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(error.extra.retryAfter ?? 5))
    .send(errorAnswer(id, MCP_ERRORS.serviceUnavailable, `${error.code}: ${error.detail}`, { code: error.code, retryAfter: error.extra.retryAfter }));
}

function isHealthCall(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false;
  const msg = m as Incoming;
  if (msg.method === 'notifications/initialized') return true;
  return msg.method === 'tools/call' && typeof msg.params === 'object' && msg.params !== null && (msg.params as { name?: unknown }).name === 'health';
}

async function answer(
  message: unknown,
  auth: AuthResult,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: McpDeps,
  toolsList: string,
): Promise<{ answer: Answer; refusal: ApiError | null }> {
  const none = { refusal: null };
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return { answer: errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object'), ...none };
  }
  const msg = message as Incoming;
  const hasId = 'id' in msg;
  const id: Id = hasId && validId(msg.id) ? msg.id : null;
  // A client's response to a server request: we never send requests, so there is nothing to do.
  if (!('method' in msg) && ('result' in msg || 'error' in msg) && msg.jsonrpc === '2.0') return { answer: null, ...none };
  if (msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || (hasId && !validId(msg.id))) {
    return { answer: errorAnswer(id, ErrorCode.InvalidRequest, 'Invalid Request: expected {"jsonrpc":"2.0","method":string,"id":number|string}'), ...none };
  }
  if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object')) {
    return { answer: hasId ? errorAnswer(id, ErrorCode.InvalidParams, 'Invalid params: params must be an object') : null, ...none };
  }
  const params = (msg.params ?? {}) as Record<string, unknown>;
  // Notifications (no id) are never answered with a body.
  if (!hasId) return { answer: null, ...none };

  switch (msg.method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      const protocolVersion = typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
      const result = {
        protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'stock-data-service', title: 'Stock scoring and export data', version: deps.version },
        instructions:
          'Read-only data on Korean (6-digit codes) and US (tickers) listed stocks and Korean exports. get_rankings and ' +
          'get_stock_score are formula results; snapshot, valuation band, percentile and price history are raw material without verdicts.',
      };
      return { answer: resultAnswer(id, JSON.stringify(result)), ...none };
    }
    case 'ping':
      return { answer: resultAnswer(id, '{}'), ...none };
    case 'tools/list':
      return { answer: resultAnswer(id, toolsList), ...none };
    case 'tools/call':
      return callTool(id, params, auth, request, reply, deps);
    default:
      return { answer: errorAnswer(id, ErrorCode.MethodNotFound, `Method not found: ${msg.method.slice(0, 60)}`), ...none };
  }
}

async function callTool(
  id: Id,
  params: Record<string, unknown>,
  auth: AuthResult,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: McpDeps,
): Promise<{ answer: Answer; refusal: ApiError | null }> {
  const name = params.name;
  const tool = typeof name === 'string' ? toolByName(name) : undefined;
  if (tool === undefined) {
    const shown = typeof name === 'string' ? name.slice(0, 60) : String(typeof name);
    return {
      answer: errorAnswer(id, ErrorCode.InvalidParams, `Unknown tool: ${shown}; available: ${TOOLS.map((t) => t.name).join(', ')}`),
      refusal: null,
    };
  }
  const gate: Gate = await admitCall(deps.access, deps.clock, auth, tool.name);
  if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
  if (!gate.ok) {
    const e = gate.error;
    const code = e.code === 'unauthorized' ? MCP_ERRORS.unauthorized : MCP_ERRORS.quota;
    return {
      answer: errorAnswer(id, code, `${e.code}: ${e.detail}`, { code: e.code, retryAfter: e.extra.retryAfter }),
      refusal: e.code === 'unauthorized' ? null : e,
    };
  }
  try {
    const given = params.arguments ?? {};
    // The tool's MCP defaults (the compact form of long series) under the caller's own arguments.
    const withDefaults = tool.mcpDefaults && typeof given === 'object' && given !== null && !Array.isArray(given) ? { ...tool.mcpDefaults, ...given } : given;
    const args = parseArgs(tool.input, withDefaults) as Record<string, unknown>;
    const { entry } = await deps.runner.run(tool, args, gate.account);
    // Within the size budget: a long series over it is cut to its latest rows, and says so.
    entry.mcpResult ??= mcpToolResult(tool, entry.body);
    return { answer: resultAnswer(id, entry.mcpResult), refusal: null };
  } catch (err) {
    if (err instanceof ApiError) {
      if (err.code === 'data_unavailable') return { answer: errorAnswer(id, MCP_ERRORS.dataUnavailable, err.detail, { code: err.code }), refusal: null };
      // Bad arguments and unknown codes are the tool's answer, so the model can correct itself.
      return { answer: resultAnswer(id, toolResultError(`${err.code}: ${err.detail}`)), refusal: null };
    }
    const outage = outageError(err);
    if (outage !== null) {
      request.log.warn({ errName: (err as Error).name }, 'dependency unreachable');
      return { answer: errorAnswer(id, MCP_ERRORS.serviceUnavailable, `${outage.code}: ${outage.detail}`, { code: outage.code, retryAfter: outage.extra.retryAfter }), refusal: outage };
    }
    request.log.error({ errName: (err as Error).name }, 'tool failed');
    return { answer: errorAnswer(id, ErrorCode.InternalError, `Internal error; quote request id ${request.id}`), refusal: null };
  }
}
