// The JSON-RPC 2.0 / MCP door: POST /api/mcp, Streamable HTTP in stateless JSON-response mode.
//
// The protocol is the official SDK's McpServer (mcp-server.ts). This file is the thin HTTP
// adapter in front of it, for what the door promises (README.md, docs/architecture.md) and the SDK's own
// Streamable HTTP transport refuses: a bare curl call (no Accept header, no initialize first)
// gets a plain JSON answer; batches are answered as arrays; notifications get 202; malformed
// JSON is -32700 and a non-request -32600. It also keeps the door's HTTP behaviour and its part
// of the admission path (gate.ts): the Origin allow-list and the key, checked once per HTTP
// request before the body is read (401 with WWW-Authenticate); every message metered before it
// is dispatched; a lone message refused for quota, burst or by an outage answered with HTTP 429
// or 503 and Retry-After. Each message goes into the server through an in-process transport
// under an id of its own and comes back with the caller's.

import { ErrorCode, LATEST_PROTOCOL_VERSION, isJSONRPCRequest, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../access/access.js';
import type { Clock } from '../access/clock.js';
import type { ApiError } from '../tools/errors.js';
import { TOOLS } from '../tools/registry.js';
import { admit, identify, keyRefusal, rateLimitHeaders, settle, type CallOf, type Identity, type RefusalDelay } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { MCP_ERRORS, RpcError, rpcErrorOf } from './mcp-errors.js';
import { createMcpServer, type McpCall } from './mcp-server.js';
import type { OAuthService } from '../oauth/service.js';

export { MCP_ERRORS } from './mcp-errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key of an MCP request, set by the door's request hook before the body is read. */
    auth: AuthResult | null;
  }
}

export interface McpDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
  maxBatch: number;
  allowedOrigins: readonly string[];
  version: string;
  /** How failed authentications are answered late. */
  refusalDelay: RefusalDelay;
  /** The OAuth authorization server (OAUTH=on): its access tokens are admitted as their keys. */
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

/** Names of the registry's tools: a tools/call of one of them is metered as that tool. */
const TOOL_NAMES = new Set(TOOLS.map((t) => t.name));

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
  app.decorateRequest('auth', null);

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

  app.post('/api/mcp', { onRequest: (request, reply, done) => checkRequest(request, reply, done) }, async (request, reply) => {
    reply.type('application/json');
    const auth = request.auth as AuthResult;
    let payload: unknown;
    try {
      payload = JSON.parse(typeof request.body === 'string' ? request.body : '');
    } catch {
      // A refused key gets no further: what it sent cannot be a health call.
      if (!auth.ok) return refuseLate(reply, keyRefusal(auth));
      return reply.code(400).send(errorAnswer(null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'));
    }
    const batch = Array.isArray(payload);
    const messages: unknown[] = batch ? (payload as unknown[]) : [payload];
    // A well-formed unknown or revoked key may ask health alone (to be told valid: false); anything else
    // with it, a batch of health calls included, is refused whole.
    if (!auth.ok && (batch || !isHealthCall(payload))) return refuseLate(reply, keyRefusal(auth));
    if (messages.length === 0) return reply.code(400).send(errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid Request: empty batch'));
    if (messages.length > deps.maxBatch) {
      return reply.code(400).send(errorAnswer(null, ErrorCode.InvalidRequest, `Invalid Request: at most ${deps.maxBatch} messages per batch`));
    }

    // One message at a time, in order, so a batch meters its messages in the order they were sent.
    const answers: Answer[] = [];
    let refusal: ApiError | null = null;
    for (const message of messages) {
      const call: McpCall = { auth, account: null, request, reply, refusal: null, raw: null };
      // Awaited only when it is a promise: a key and counts in memory admit without a microtask.
      const admitted = admit(deps.access, deps.clock, auth, meteredAs(message));
      const gate = admitted instanceof Promise ? await admitted : admitted;
      if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
      // Metering needs the database or Redis: without it nothing is answered.
      if (!gate.ok && gate.error.status === 503) return refuse(reply, gate.error);
      let answer: Answer;
      if (gate.ok) {
        call.account = gate.account;
        answer = await answerMessage(message, call);
      } else {
        call.refusal = gate.error;
        answer = answerRefused(message, gate.error);
      }
      answers.push(answer);
      refusal ??= call.refusal;
    }
    const replies = answers.filter((a): a is string | Buffer => a !== null);
    if (replies.length === 0) return reply.code(202).send();
    // A single refused message is an HTTP 429 (503 when a dependency is away) with the JSON-RPC
    // error as its body.
    if (!batch && refusal !== null) {
      reply.code(refusal.status === 503 ? 503 : 429).header('retry-after', String(refusal.extra.retryAfter ?? 1));
    }
    return reply.send(bodyOf(replies, batch));
  });

  /** A failed authentication's refusal, answered after the refusal delay. */
  // With OAuth on, a 401 or 403 names where the protected resource metadata is (RFC 9728 5.1),
  // so a connector can discover the authorization server from it.
  const oauth = deps.oauth;
  if (oauth) {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', oauth.challenge(request.headers.authorization !== undefined));
      done(null, payload);
    });
  }

  function refuseLate(reply: FastifyReply, error: ApiError): Promise<FastifyReply> {
    return new Promise((resolve) => deps.refusalDelay.hold(reply, () => resolve(refuse(reply, error))));
  }

  /**
   * Step one of the admission, before the body is read: the Origin (DNS rebinding: a browser
   * page from a foreign origin may not call us), then the key. A request refused here (no or a
   * malformed key, an address that failed too often, the store away) is answered without its
   * body being parsed (or, past `DRAINED_BODY_BYTES`, read: see `early`).
   */
  function checkRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    const origin = request.headers.origin;
    if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin) && !deps.allowedOrigins.includes(origin)) {
      early(request, reply).code(403).type('application/json').send(errorAnswer(null, MCP_ERRORS.forbidden, 'origin not allowed'));
      return;
    }
    const pass = (id: Identity): void => {
      if (!id.ok) {
        // An OAuth token for another resource or without the scope (403, RFC 6750 insufficient_scope).
        if (id.error.code === 'forbidden' && oauth) reply.header('www-authenticate', oauth.forbiddenChallenge());
        deps.refusalDelay.refuse(reply, id.error, () => void refuse(early(request, reply).type('application/json'), id.error));
        return;
      }
      request.auth = id.auth;
      if (id.auth.ok) request.keyPrefix = id.auth.caller.prefix;
      done();
    };
    settle(() => identify(deps.access, request.headers.authorization, request.ip, deps.oauth), pass, done);
  }

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

/** A refusal of the whole HTTP request: its status, headers and the JSON-RPC error (`id: null`). */
function refuse(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.code === 'unauthorized') reply.header('www-authenticate', 'Bearer realm="api", error="invalid_token"');
  if (error.extra.retryAfter !== undefined) reply.header('retry-after', String(error.extra.retryAfter));
  return reply.code(error.status).send(refusalAnswer(null, error));
}

function refusalAnswer(id: Id, error: ApiError): string {
  const rpc = rpcErrorOf(error);
  return errorAnswer(id, rpc.code, rpc.message, rpc.data);
}

/** The answer to a message the gate refused: its error under its id; nothing for a notification. */
function answerRefused(message: unknown, error: ApiError): Answer {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return refusalAnswer(null, error);
  const msg = message as Incoming;
  if (!('id' in msg)) return null;
  return refusalAnswer(validId(msg.id) ? msg.id : null, error);
}

/** How a message is metered: a tools/call of a registered tool as that tool, anything else as a protocol message. */
function meteredAs(message: unknown): CallOf {
  if (message === null || typeof message !== 'object') return null;
  const msg = message as Incoming;
  if (msg.method !== 'tools/call' || typeof msg.params !== 'object' || msg.params === null) return null;
  const name = (msg.params as { name?: unknown }).name;
  return typeof name === 'string' && TOOL_NAMES.has(name) ? name : null;
}

/** Bodies up to this size are drained and thrown away after an early answer, keeping the connection. */
const DRAINED_BODY_BYTES = 16_384;

/**
 * The reply of a request answered before its body is read. Node throws away the rest of an
 * unread body to keep the connection for the next request; a body larger than
 * `DRAINED_BODY_BYTES`, or of unannounced length, is not waited for: the connection closes
 * after the answer.
 */
function early(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const length = request.headers['content-length'];
  const drained = length === undefined ? request.headers['transfer-encoding'] === undefined : Number(length) <= DRAINED_BODY_BYTES;
  if (!drained) reply.header('connection', 'close');
  return reply;
}

function isHealthCall(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false;
  const msg = m as Incoming;
  return msg.method === 'tools/call' && typeof msg.params === 'object' && msg.params !== null && (msg.params as { name?: unknown }).name === 'health';
}
