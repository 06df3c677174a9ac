// The JSON-RPC 2.0 / MCP door: POST /api/mcp, Streamable HTTP, stateless, JSON responses, both
// protocol eras on one endpoint (2026-07-28, and 2025-06-18 / 2025-11-25 with initialize).
//
// The protocol is the official SDK v2 (mcp-server.ts builds its McpServer per request). The SDK's
// own classifier (`classifyInboundRequest`) decides each request's era and answers what it
// rejects (a header disagreeing with the body, a 2026 envelope missing, a 2026 batch) with the
// specified JSON-RPC error and HTTP 400. A 2026 request goes to the SDK's `createMcpHandler`
// (server/discover, the header presence checks, `resultType`, `ttlMs` / `cacheScope`). A 2025
// request goes message by message to the SDK's stateless Streamable HTTP transport in JSON mode,
// except tools/call (below).
//
// This file is the thin step in front of the SDK, for what the door promises (README.md,
// docs/architecture.md) and the SDK does not give: a bare curl call (no Accept header, no
// initialize first) gets a plain JSON answer; 2025 batches are answered as arrays; 2025
// notifications get 202; malformed JSON is -32700 and a non-request -32600; and the door's part of
// the admission path (gate.ts): the Origin allow-list and the key, checked once per HTTP request
// before the body is read (401 with WWW-Authenticate); every message metered before it is
// dispatched; a lone message refused for quota, burst or by an outage answered with HTTP 429 or
// 503 and Retry-After. A 2025 tools/call is checked with the SDK's own request guard
// (`isSpecType.CallToolRequest`) and answered here from the response cache's serialised result,
// byte for byte, so a cached call is neither parsed nor serialised again and builds no server
// (docs/architecture.md has the figures).

import {
  classifyInboundRequest,
  createMcpHandler,
  isSpecType,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
  WebStandardStreamableHTTPServerTransport,
  ProtocolErrorCode,
  type InboundModernRoute,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../access/access.js';
import type { Clock } from '../kernel/clock.js';
import type { ApiError } from '../kernel/errors.js';
import { TOOLS } from '../tools/registry.js';
import { admit, identify, keyRefusal, rateLimitHeaders, settle, type CallOf, type Identity, type RefusalDelay } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { MCP_ERRORS, rpcErrorOf, unknownToolMessage } from './mcp-errors.js';
import { authInfoOf, createMcpService, type McpCall } from './mcp-server.js';
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

/**
 * The 2026 revision the SDK serves through createMcpHandler (the SDK exports no constant for
 * it: SUPPORTED_PROTOCOL_VERSIONS lists the initialize era's), and every revision served: what
 * an unsupported-version error names.
 */
const MODERN_REVISION = '2026-07-28';
const SERVED_REVISIONS = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** Names of the registry's tools: a tools/call of one of them is metered as that tool. */
const TOOL_LIST = TOOLS.map((t) => t.name);
const TOOL_NAMES = new Set(TOOL_LIST);

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

  const service = createMcpService({ runner: deps.runner, clock: deps.clock, version: deps.version, tools: TOOLS });
  const onerror = (err: Error): void => app.log.debug({ errName: err.name, err: err.message }, 'mcp: request refused or failed in the SDK');
  // The 2026-07-28 era: the SDK's entry, strict (2025 traffic never reaches it: see the route). Its
  // default response mode answers JSON unless a handler sends a message before its result, which
  // none of ours does (responseMode 'json' would say the same with a console warning at start).
  const modern = createMcpHandler(service.factory, { legacy: 'reject', onerror });
  app.addHook('onClose', async () => modern.close());
  /** Serialised 2025-era answers that never change while the process runs (the registry is fixed at start). */
  const constant = new Map<string, string>();

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .type('application/json')
      .send(errorAnswer(null, CONNECTION_CLOSED, 'this endpoint is stateless: POST JSON-RPC messages; no SSE stream or session'));
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
      return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON'));
    }
    const batch = Array.isArray(payload);
    const messages: unknown[] = batch ? (payload as unknown[]) : [payload];
    // A well-formed unknown or revoked key may ask health alone (to be told valid: false); anything else
    // with it, a batch of health calls included, is refused whole.
    if (!auth.ok && (batch || !isHealthCall(payload))) return refuseLate(reply, keyRefusal(auth));
    if (messages.length === 0) return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: empty batch'));
    if (messages.length > deps.maxBatch) {
      return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: at most ${deps.maxBatch} messages per batch`));
    }

    // The era, by the SDK's classifier; what it rejects is answered as it says (HTTP 400 and the JSON-RPC error).
    // A bare request is the 2025 era by the classifier's own rule, without running it (see `bareRequest`).
    const headers = request.headers;
    if (bareRequest(payload, headers)) return answerLegacyRequest(messages, batch, auth, request, reply);
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headerOf(headers['mcp-protocol-version']),
      mcpMethodHeader: headerOf(headers['mcp-method']),
      mcpNameHeader: headerOf(headers['mcp-name']),
      body: payload,
    });
    // A 2025 batch with a malformed member is answered member by member (JSON-RPC 2.0), not refused whole.
    const memberByMember = batch && route.kind === 'reject' && route.cell === 'batch-with-invalid-element';
    if (route.kind === 'reject' && !memberByMember) return reply.code(route.httpStatus).send(errorAnswer(batch ? null : idOf(payload), route.code, route.message, route.data));
    if (route.kind === 'modern') return serveModern(route, request, reply, auth);

    // The 2025 era. The header, when sent, names a revision of that era (initialize negotiates it).
    const version = headerOf(headers['mcp-protocol-version']);
    // A batch under the 2026 header: the revision has no batches (its members may lack the envelope, which the classifier checks only on single requests).
    if (version === MODERN_REVISION && batch) {
      return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: protocol revision ${MODERN_REVISION} has no batches; send each request in a POST of its own`));
    }
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const error = new UnsupportedProtocolVersionError({ supported: SERVED_REVISIONS, requested: version.slice(0, 40) });
      return reply.code(400).send(errorAnswer(batch ? null : idOf(payload), error.code, error.message, error.data));
    }
    return answerLegacyRequest(messages, batch, auth, request, reply);
  });

  /** A 2025-era HTTP request: its messages one at a time, in order, so a batch meters its messages in the order they were sent. */
  async function answerLegacyRequest(messages: unknown[], batch: boolean, auth: AuthResult, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const answers: Answer[] = [];
    let refusal: ApiError | null = null;
    for (const message of messages) {
      const pending = admitted(auth, message, reply);
      const gate = pending instanceof Promise ? await pending : pending;
      // Metering needs the database or Redis: without it nothing is answered.
      if (!gate.ok && gate.error.status === 503) return refuse(reply, gate.error);
      if (gate.ok) {
        const handled = await answerLegacy(message, { auth, account: gate.account, request, arguments: argumentsOf(message) });
        answers.push(handled.answer);
        refusal ??= handled.refusal;
      } else {
        answers.push(answerRefused(message, gate.error));
        refusal ??= gate.error;
      }
    }
    const replies = answers.filter((a): a is string | Buffer => a !== null);
    if (replies.length === 0) return reply.code(202).send();
    // A single refused message is an HTTP 429 (503 when a dependency is away) with the JSON-RPC
    // error as its body.
    if (!batch && refusal !== null) refusedMessage(reply, refusal);
    return reply.send(bodyOf(replies, batch));
  }

  /** The gate for one message, with its rate-limit headers set; a promise only when metering waits (a key and counts in memory admit without a microtask). */
  function admitted(auth: AuthResult, message: unknown, reply: FastifyReply): Gate | Promise<Gate> {
    const withHeaders = (gate: Gate): Gate => {
      if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
      return gate;
    };
    const pending = admit(deps.access, deps.clock, auth, meteredAs(message));
    return pending instanceof Promise ? pending.then(withHeaders) : withHeaders(pending);
  }

  /**
   * A 2026-07-28 request (one message: the revision has no batches): metered, then served by the
   * SDK's entry, whose answer (status and body) is sent as it is. An unknown tool is answered here,
   * naming the tools, as in the 2025 era.
   */
  async function serveModern(route: InboundModernRoute, request: FastifyRequest, reply: FastifyReply, auth: AuthResult): Promise<FastifyReply> {
    const message = route.message;
    const gate = await admitted(auth, message, reply);
    if (!gate.ok) {
      if (route.messageKind === 'notification') return reply.code(202).send();
      return refusedMessage(reply, gate.error).send(refusalAnswer(route.message.id, gate.error));
    }
    if (route.messageKind === 'request' && message.method === 'tools/call') {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string' || !TOOL_NAMES.has(name)) return reply.send(errorAnswer(route.message.id, ProtocolErrorCode.InvalidParams, unknownToolMessage(name, TOOL_LIST)));
    }
    const call: McpCall = { auth, account: gate.account, request, arguments: argumentsOf(message) };
    const response = await modern.fetch(webRequest(request.headers, request.body as string), { parsedBody: message, authInfo: authInfoOf(call) });
    const text = await response.text();
    reply.code(response.status).type(response.headers.get('content-type') ?? 'application/json');
    return text === '' ? reply.send() : reply.send(text);
  }

  /** A refused key's refusal, answered after the refusal delay. */
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
    return new Promise((resolve) => deps.refusalDelay.hold(reply, reply.request.ip, () => resolve(refuse(reply, error))));
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
        deps.refusalDelay.refuse(reply, request.ip, id.error, () => void refuse(early(request, reply).type('application/json'), id.error));
        return;
      }
      request.auth = id.auth;
      if (id.auth.ok) request.keyPrefix = id.auth.caller.prefix;
      done();
    };
    settle(() => identify(deps.access, request.headers.authorization, request.ip, deps.oauth), pass, done);
  }

  /**
   * One admitted 2025-era message: what the SDK would drop or misread is answered here, a
   * tools/call is run by `callTool`, anything else goes to the SDK.
   */
  async function answerLegacy(message: unknown, call: McpCall): Promise<{ answer: Answer; refusal: ApiError | null }> {
    const answer = (a: Answer) => ({ answer: a, refusal: null });
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return answer(errorAnswer(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object'));
    }
    const msg = message as Incoming;
    const hasId = 'id' in msg;
    const id: Id = hasId && validId(msg.id) ? msg.id : null;
    // A client's response to a server request: we never send requests, so there is nothing to do.
    if (!('method' in msg) && ('result' in msg || 'error' in msg) && msg.jsonrpc === '2.0') return answer(null);
    if (msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || (hasId && !validId(msg.id))) {
      return answer(errorAnswer(id, ProtocolErrorCode.InvalidRequest, 'Invalid Request: expected {"jsonrpc":"2.0","method":string,"id":number|string}'));
    }
    if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params))) {
      return answer(hasId ? errorAnswer(id, ProtocolErrorCode.InvalidParams, 'Invalid params: params must be an object') : null);
    }
    // Notifications (no id) are never answered with a body. None is passed on: initialized and
    // cancelled are about a session or an in-flight request, and a stateless server has neither.
    if (!hasId) return answer(null);
    const params = msg.params as Record<string, unknown> | undefined;
    const method = msg.method;

    if (method === 'tools/call') {
      if (typeof params?.name !== 'string' || !TOOL_NAMES.has(params.name)) return answer(errorAnswer(id, ProtocolErrorCode.InvalidParams, unknownToolMessage(params?.name, TOOL_LIST)));
      if (!isSpecType.CallToolRequest(message)) return answer(errorAnswer(id, ProtocolErrorCode.InvalidParams, 'Invalid params: not a tools/call request (arguments must be an object)'));
      const outcome = await service.callTool(params.name, call);
      if (outcome.kind === 'result') return answer(rawResultAnswer(id, outcome.bytes));
      if (outcome.kind === 'tool-error') return answer(resultAnswer(id, JSON.stringify(outcome.result)));
      return { answer: errorAnswer(id, outcome.error.code, outcome.error.message, outcome.error.data), refusal: outcome.refusal };
    }
    const cacheable = CONSTANT_METHODS.has(method) && (params === undefined || Object.keys(params).length === 0);
    const known = cacheable ? constant.get(method) : undefined;
    if (known !== undefined) return answer(resultAnswer(id, known));

    const forwarded = { jsonrpc: '2.0', id, method, ...(params === undefined && method !== 'initialize' ? {} : { params: method === 'initialize' ? bareInitialize(params ?? {}) : params }) };
    const response = await legacyExchange(forwarded, call);
    if (response === null) return answer(errorAnswer(id, ProtocolErrorCode.InvalidRequest, 'Invalid Request: the message was not accepted'));
    if ('error' in response) return answer(errorAnswer(id, response.error.code, response.error.message, response.error.data));
    const result = JSON.stringify(response.result);
    if (cacheable) constant.set(method, result);
    return answer(resultAnswer(id, result));
  }

  /**
   * One 2025-era request through the SDK: a fresh server from the same factory as the 2026 era, on
   * the SDK's Streamable HTTP transport in its stateless JSON mode (the SDK's stateless idiom,
   * with JSON rather than SSE answers). Null when the transport answers with no JSON-RPC response.
   */
  async function legacyExchange(message: Record<string, unknown>, call: McpCall): Promise<RpcResponse | null> {
    const authInfo = authInfoOf(call);
    const server = await service.factory({ era: 'legacy', authInfo });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const body = JSON.stringify(message);
      const response = await transport.handleRequest(webRequest(NO_PROTOCOL_HEADERS, body), { parsedBody: message, authInfo });
      const text = await response.text();
      const parsed = text === '' ? null : (JSON.parse(text) as unknown);
      return parsed !== null && typeof parsed === 'object' && ('result' in parsed || 'error' in parsed) ? (parsed as RpcResponse) : null;
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  }
}

type Gate = Awaited<ReturnType<typeof admit>>;

/**
 * Whether a request is a lone 2025-era request as curl sends it: no protocol header at all and no
 * `_meta` in its params. The SDK's classifier routes such a request to the 2025 era ("no claim":
 * the 2026 revision claims a request by the `MCP-Protocol-Version` header and the `_meta`
 * envelope); test/http/mcp.test.ts checks that it agrees on every shape this accepts. It is
 * decided here without the classifier because the classifier parses the whole body with zod
 * (about 25 us, a quarter of a cached tools/call); a tools/call is still checked with the SDK's
 * own guard (`isSpecType.CallToolRequest`) before it runs, anything else by the SDK.
 */
export function bareRequest(payload: unknown, headers: Record<string, string | string[] | undefined>): boolean {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return false;
  const msg = payload as Incoming;
  if (typeof msg.method !== 'string' || msg.jsonrpc !== '2.0' || !validId(msg.id)) return false;
  if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params) || '_meta' in msg.params)) return false;
  return headers['mcp-protocol-version'] === undefined && headers['mcp-method'] === undefined && headers['mcp-name'] === undefined;
}

type RpcResponse = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/** The client's headers a 2025-era message is handed on with: no protocol header (the door has judged the client's). */
const NO_PROTOCOL_HEADERS: Record<string, string> = {};

/** The -32000 code of a JSON-RPC call the endpoint does not take (GET, DELETE: no session, no stream). */
const CONNECTION_CLOSED = -32000;

/** The web Request the SDK is handed: the protocol headers as the client sent them, JSON accepted. */
function webRequest(headers: Record<string, string | string[] | undefined>, body: string): Request {
  const out = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  for (const name of ['mcp-protocol-version', 'mcp-method', 'mcp-name']) {
    const value = headerOf(headers[name]);
    if (value !== undefined) out.set(name, value);
  }
  return new Request('http://localhost/api/mcp', { method: 'POST', headers: out, body });
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function idOf(payload: unknown): Id {
  const id = payload !== null && typeof payload === 'object' ? (payload as Incoming).id : undefined;
  return validId(id) ? id : null;
}

/** A tools/call's arguments as parsed from the body (see McpCall.arguments). */
function argumentsOf(message: unknown): unknown {
  if (message === null || typeof message !== 'object') return undefined;
  const params = (message as Incoming).params;
  return params !== null && typeof params === 'object' ? (params as { arguments?: unknown }).arguments : undefined;
}

/**
 * initialize as curl sends it: MCP requires `capabilities` and `clientInfo`, which a bare call
 * leaves out; the server uses neither (it never calls the client back), so they default.
 */
function bareInitialize(params: Record<string, unknown>): Record<string, unknown> {
  return { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'unnamed', version: '0' }, ...params };
}

/** The HTTP status of a lone message refused by the gate or met by an outage: 503 when a dependency is away, else 429; with Retry-After. */
function refusedMessage(reply: FastifyReply, refusal: ApiError): FastifyReply {
  return reply.code(refusal.status === 503 ? 503 : 429).header('retry-after', String(refusal.extra.retryAfter ?? 1));
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
