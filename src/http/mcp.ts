// The JSON-RPC 2.0 / MCP door: POST /api/mcp, Streamable HTTP in stateless JSON-response mode.
//
// The protocol is the official SDK's McpServer (mcp-server.ts). This file is the thin HTTP
// adapter in front of it, for what the door promises (README.md, docs/architecture.md) and the SDK's own
// Streamable HTTP transport refuses: a bare curl call (no Accept header, no initialize first)
// gets a plain JSON answer; batches are answered as arrays; notifications get 202; malformed
// JSON is -32700 and a non-request -32600. It also keeps the door's HTTP behaviour: the Origin
// allow-list, one key check per HTTP request (401 with WWW-Authenticate), and a lone tools/call
// refused for quota or by an outage answered with HTTP 429 or 503 and Retry-After. Each message
// goes into the server through an in-process transport under an id of its own and comes back
// with the caller's.

import { ErrorCode, LATEST_PROTOCOL_VERSION, isJSONRPCRequest, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../access/access.js';
import type { Clock } from '../access/clock.js';
import type { ApiError } from '../tools/errors.js';
import { TOOLS } from '../tools/registry.js';
import { outageError } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { MCP_ERRORS, RpcError } from './mcp-errors.js';
import { createMcpServer, type McpCall } from './mcp-server.js';
import type { OAuthService, TokenAuth } from '../oauth/service.js';

export { MCP_ERRORS } from './mcp-errors.js';

export interface McpDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
  maxBatch: number;
  allowedOrigins: readonly string[];
  version: string;
  /** The OAuth authorization server (OAUTH=on): its access tokens act as their keys here. */
  oauth?: OAuthService | null;
}

type Id = string | number | null;

interface Incoming {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  jsonrpc?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * A serialised JSON-RPC response, or null for a message that gets none (a notification). A
 * cached tool result comes as UTF-8 bytes and is sent as bytes: a string body would be measured
 * and encoded again on every request.
 */
type Answer = string | Buffer | null;

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** Answers that never change while the process runs (the registry is fixed at start), kept serialised. */
const CONSTANT_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

const encodeId = (id: Id): string => JSON.stringify(id);
const errorAnswer = (id: Id, code: number, message: string, data?: unknown): string =>
  `{"jsonrpc":"2.0","id":${encodeId(id)},"error":${JSON.stringify({ code, message, ...(data === undefined ? {} : { data }) })}}`;
const resultHead = (id: Id): string => `{"jsonrpc":"2.0","id":${encodeId(id)},"result":`;
const resultAnswer = (id: Id, result: string): string => `${resultHead(id)}${result}}`;
const CLOSE = Buffer.from('}');
const rawResultAnswer = (id: Id, result: Buffer): Buffer => Buffer.concat([Buffer.from(resultHead(id)), result, CLOSE]);
const COMMA = Buffer.from(',');
const OPEN_BATCH = Buffer.from('[');
const CLOSE_BATCH = Buffer.from(']');

/** The HTTP body of the answers: one answer as it is, a batch as a JSON array. */
function bodyOf(replies: readonly (string | Buffer)[], batch: boolean): string | Buffer {
  if (!batch) return replies[0] as string | Buffer;
  if (replies.every((r) => typeof r === 'string')) return `[${replies.join(',')}]`;
  const parts: Buffer[] = [];
  for (const r of replies) parts.push(parts.length === 0 ? OPEN_BATCH : COMMA, typeof r === 'string' ? Buffer.from(r, 'utf8') : r);
  parts.push(CLOSE_BATCH);
  return Buffer.concat(parts);
}

function validId(id: unknown): id is string | number {
  return (typeof id === 'string' && id.length <= 200) || (typeof id === 'number' && Number.isFinite(id));
}

export async function mcpRoutes(app: FastifyInstance, deps: McpDeps): Promise<void> {
  // The body is read as text whatever its content type, so malformed JSON becomes the
  // JSON-RPC parse error (-32700) rather than a framework error page.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const { server, transport, callToolDirect } = createMcpServer({
    access: deps.access,
    runner: deps.runner,
    clock: deps.clock,
    version: deps.version,
    tools: TOOLS,
    onError: (err) => app.log.warn({ errName: err.name }, 'mcp server error'),
  });
  await server.connect(transport);
  app.addHook('onClose', async () => server.close());
  const constant = new Map<string, string>();

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
    // (to be told so: valid false); anything else with it is refused like a missing key.
    let auth: AuthResult;
    try {
      // An OAuth access token is admitted as the key it acts as; anything else is a key.
      const byToken: TokenAuth | null = deps.oauth ? await deps.oauth.authenticate(request.headers.authorization) : null;
      if (byToken !== null && !byToken.ok && byToken.why === 'forbidden') {
        return reply
          .code(403)
          .header('www-authenticate', (deps.oauth as OAuthService).forbiddenChallenge())
          .send(errorAnswer(null, MCP_ERRORS.forbidden, 'Forbidden: the token is not for this resource or lacks its scope'));
      }
      auth = byToken ?? (await deps.access.authenticate(request.headers.authorization));
    } catch (err) {
      const outage = outageError(err);
      if (outage === null) throw err;
      return unavailable(reply, outage);
    }
    const onlyHealthCalls = messages.every((m) => isHealthCall(m));
    if (!auth.ok && (auth.why === 'missing' || !onlyHealthCalls)) {
      const detail = auth.why === 'missing' ? 'send a valid API key as Authorization: Bearer <key>' : 'the API key is not accepted';
      return reply
        .code(401)
        .header('www-authenticate', deps.oauth ? deps.oauth.challenge(auth.why !== 'missing') : 'Bearer realm="api", error="invalid_token"')
        .send(errorAnswer(null, MCP_ERRORS.unauthorized, `Unauthorized: ${detail}`));
    }
    if (auth.ok) request.keyPrefix = auth.caller.prefix;

    // One message at a time, in order, so a batch counts its calls in the order they were sent.
    const answers: Answer[] = [];
    let refusal: ApiError | null = null;
    for (const message of messages) {
      const call: McpCall = { auth, request, reply, refusal: null, outage: null, raw: null };
      const answer = await answerMessage(message, call);
      // Counting the call needs the database or Redis: without it nothing is answered.
      if (call.outage !== null) return unavailable(reply, call.outage);
      answers.push(answer);
      refusal ??= call.refusal;
    }
    const replies = answers.filter((a): a is string | Buffer => a !== null);
    if (replies.length === 0) return reply.code(202).send();
    // A single refused call is an HTTP 429 (503 when a dependency is away) with the JSON-RPC
    // error as its body.
    if (!batch && refusal !== null) {
      reply.code(refusal.status === 503 ? 503 : 429).header('retry-after', String(refusal.extra.retryAfter ?? 1));
    }
    return reply.send(bodyOf(replies, batch));
  });

  /** Checks what the SDK would drop or misread, then hands the request to the server. */
  async function answerMessage(message: unknown, call: McpCall): Promise<Answer> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object');
    }
    const msg = message as Incoming;
    const hasId = 'id' in msg;
    const id: Id = hasId && validId(msg.id) ? msg.id : null;
    // A client's response to a server request: we never send requests, so there is nothing to do.
    if (!('method' in msg) && ('result' in msg || 'error' in msg) && msg.jsonrpc === '2.0') return null;
    if (msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || (hasId && !validId(msg.id))) {
      return errorAnswer(id, ErrorCode.InvalidRequest, 'Invalid Request: expected {"jsonrpc":"2.0","method":string,"id":number|string}');
    }
    if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params))) {
      return hasId ? errorAnswer(id, ErrorCode.InvalidParams, 'Invalid params: params must be an object') : null;
    }
    // Notifications (no id) are never answered with a body. None is passed on: initialized and
    // cancelled are about a session or an in-flight request, and a stateless server has neither.
    if (!hasId) return null;
    const params = msg.params as Record<string, unknown> | undefined;
    const method = msg.method;

    if (method === 'tools/call' && typeof params?.name !== 'string') {
      const shown = params?.name === undefined ? 'none given' : typeof params.name;
      return errorAnswer(id, ErrorCode.InvalidParams, `Unknown tool: ${shown}; available: ${TOOLS.map((t) => t.name).join(', ')}`);
    }
    const cacheable = CONSTANT_METHODS.has(method) && (params === undefined || Object.keys(params).length === 0);
    const known = cacheable ? constant.get(method) : undefined;
    if (known !== undefined) return resultAnswer(id, known);

    const forwarded = method === 'initialize' ? bareInitialize(params ?? {}) : params;
    const request = { jsonrpc: '2.0', id: 0, method, ...(forwarded === undefined ? {} : { params: forwarded }) };
    // The SDK drops a message it cannot classify without answering. What is checked above leaves
    // one way to that: a malformed params._meta.
    if (forwarded !== undefined && '_meta' in forwarded && !isJSONRPCRequest(request)) {
      return errorAnswer(id, ErrorCode.InvalidRequest, 'Invalid Request: malformed params._meta');
    }
    if (method === 'tools/call' && !('_meta' in forwarded!) && !('task' in forwarded!)) {
      try {
        const result = await callToolDirect(request as JSONRPCRequest, call);
        return call.raw !== null ? rawResultAnswer(id, call.raw) : resultAnswer(id, JSON.stringify(result));
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        return errorAnswer(id, err.code, err.message, err.data);
      }
    }
    const response = await transport.exchange(request as JSONRPCRequest, call);
    if ('error' in response) return errorAnswer(id, response.error.code, response.error.message, response.error.data);
    if (call.raw !== null) return rawResultAnswer(id, call.raw);
    const result = JSON.stringify(method === 'tools/list' ? inDefaultDialect(response.result) : response.result);
    if (cacheable) constant.set(method, result);
    return resultAnswer(id, result);
  }
}

/**
 * The SDK renders each tool's zod schemas as JSON Schema draft-07 and says so in `$schema`. For
 * these schemas the draft-07 and 2020-12 renderings are the same JSON (test/http/mcp.test.ts
 * compares them with the OpenAPI document's), so the label is dropped and the schemas are in
 * MCP's default dialect, 2020-12, like the OpenAPI 3.1 document generated from the same zod.
 */
function inDefaultDialect(result: Record<string, unknown>): Record<string, unknown> {
  const tools = (result.tools as { inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> }[] | undefined) ?? [];
  for (const tool of tools) {
    delete tool.inputSchema.$schema;
    if (tool.outputSchema) delete tool.outputSchema.$schema;
  }
  return result;
}

/**
 * initialize as curl sends it: MCP requires `capabilities` and `clientInfo`, which a bare call
 * leaves out; the server uses neither (it never calls the client back), so they default.
 */
function bareInitialize(params: Record<string, unknown>): Record<string, unknown> {
  return { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'unnamed', version: '0' }, ...params };
}

function unavailable(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(error.extra.retryAfter ?? 5))
    .send(errorAnswer(null, MCP_ERRORS.serviceUnavailable, `${error.code}: ${error.detail}`, { code: error.code, retryAfter: error.extra.retryAfter }));
}

function isHealthCall(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false;
  const msg = m as Incoming;
  if (msg.method === 'notifications/initialized') return true;
  return msg.method === 'tools/call' && typeof msg.params === 'object' && msg.params !== null && (msg.params as { name?: unknown }).name === 'health';
}
