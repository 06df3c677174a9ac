// The MCP door's protocol eras on one endpoint: which era a request belongs to, and the SDK's
// entry for each. 2026-07-28: the SDK's `createMcpHandler`. 2025-06-18 / 2025-11-25: message by
// message, the SDK's stateless Streamable HTTP transport in JSON mode, except tools/call
// (cached-call.ts) and the constant lists, kept serialised after the first.
//
// The era is the SDK's classifier's (`classifyInboundRequest`); what it rejects (a header
// disagreeing with the body, a 2026 envelope missing, a 2026 batch) is answered with the
// specified JSON-RPC error and HTTP 400. A lone bare request is the 2025 era by the classifier's
// own rule, decided without running it (`bareRequest`).

import {
  classifyInboundRequest,
  createMcpHandler,
  LATEST_PROTOCOL_VERSION,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
  WebStandardStreamableHTTPServerTransport,
  type InboundModernRoute,
} from '@modelcontextprotocol/server';
import { authInfoOf, type McpCall, type McpService } from '../mcp-server.js';
import { cachedCall, type LegacyAnswer } from './cached-call.js';
import { errorAnswer, idOf, resultAnswer, validId, type Answer, type Id, type Incoming } from './framing.js';

type IncomingHeaders = Record<string, string | string[] | undefined>;

/** Answers that never change while the process runs (the registry is fixed at start), kept serialised. */
const CONSTANT_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/**
 * The 2026 revision the SDK serves through createMcpHandler (the SDK exports no constant for
 * it: SUPPORTED_PROTOCOL_VERSIONS lists the initialize era's), and every revision served: what
 * an unsupported-version error names.
 */
const MODERN_REVISION = '2026-07-28';
const SERVED_REVISIONS = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The era of a request, or its refusal (the HTTP status and the JSON-RPC error). */
export type EraRoute = { kind: 'legacy' } | { kind: 'modern'; route: InboundModernRoute } | { kind: 'refused'; status: number; answer: string };

const LEGACY: EraRoute = { kind: 'legacy' };

/** The era of a parsed body (one message or a batch of at most the door's maximum). */
export function eraOf(payload: unknown, batch: boolean, headers: IncomingHeaders): EraRoute {
  // The era, by the SDK's classifier; what it rejects is answered as it says (HTTP 400 and the JSON-RPC error).
  // A bare request is the 2025 era by the classifier's own rule, without running it (see `bareRequest`).
  if (bareRequest(payload, headers)) return LEGACY;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(headers['mcp-protocol-version']),
    mcpMethodHeader: headerOf(headers['mcp-method']),
    mcpNameHeader: headerOf(headers['mcp-name']),
    body: payload,
  });
  // A 2025 batch with a malformed member is answered member by member (JSON-RPC 2.0), not refused whole.
  const memberByMember = batch && route.kind === 'reject' && route.cell === 'batch-with-invalid-element';
  if (route.kind === 'reject' && !memberByMember) return { kind: 'refused', status: route.httpStatus, answer: errorAnswer(batch ? null : idOf(payload), route.code, route.message, route.data) };
  if (route.kind === 'modern') return { kind: 'modern', route };

  // The 2025 era. The header, when sent, names a revision of that era (initialize negotiates it).
  const version = headerOf(headers['mcp-protocol-version']);
  // A batch under the 2026 header: the revision has no batches (its members may lack the envelope, which the classifier checks only on single requests).
  if (version === MODERN_REVISION && batch) {
    return { kind: 'refused', status: 400, answer: errorAnswer(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: protocol revision ${MODERN_REVISION} has no batches; send each request in a POST of its own`) };
  }
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    const error = new UnsupportedProtocolVersionError({ supported: SERVED_REVISIONS, requested: version.slice(0, 40) });
    return { kind: 'refused', status: 400, answer: errorAnswer(batch ? null : idOf(payload), error.code, error.message, error.data) };
  }
  return LEGACY;
}

/**
 * Whether a request is a lone 2025-era request as curl sends it: no protocol header at all and no
 * `_meta` in its params. The SDK's classifier routes such a request to the 2025 era ("no claim":
 * the 2026 revision claims a request by the `MCP-Protocol-Version` header and the `_meta`
 * envelope); test/http/mcp.test.ts checks that it agrees on every shape this accepts. It is
 * decided here without the classifier because the classifier parses the whole body with zod
 * (about 25 us, a quarter of a cached tools/call); a tools/call is still checked with the SDK's
 * own guard (`isSpecType.CallToolRequest`) before it runs, anything else by the SDK.
 */
export function bareRequest(payload: unknown, headers: IncomingHeaders): boolean {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return false;
  const msg = payload as Incoming;
  if (typeof msg.method !== 'string' || msg.jsonrpc !== '2.0' || !validId(msg.id)) return false;
  if (msg.params !== undefined && (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params) || '_meta' in msg.params)) return false;
  return headers['mcp-protocol-version'] === undefined && headers['mcp-method'] === undefined && headers['mcp-name'] === undefined;
}

/** The 2026-07-28 era's answer as the SDK's entry gives it. */
export interface ModernAnswer {
  status: number;
  contentType: string;
  /** Empty for no body (a notification's 202). */
  text: string;
}

export interface ModernEra {
  /** One admitted 2026 message, its HTTP request's protocol headers and body as the client sent them. */
  exchange(headers: IncomingHeaders, body: string, message: unknown, call: McpCall): Promise<ModernAnswer>;
  close(): Promise<void>;
}

/**
 * The 2026-07-28 era: the SDK's entry, strict (2025 traffic never reaches it: see `eraOf`). Its
 * default response mode answers JSON unless a handler sends a message before its result, which
 * none of ours does (responseMode 'json' would say the same with a console warning at start).
 */
export function createModernEra(service: McpService, onerror: (err: Error) => void): ModernEra {
  const modern = createMcpHandler(service.factory, { legacy: 'reject', onerror });
  return {
    async exchange(headers, body, message, call) {
      const response = await modern.fetch(webRequest(headers, body), { parsedBody: message, authInfo: authInfoOf(call) });
      const text = await response.text();
      return { status: response.status, contentType: response.headers.get('content-type') ?? 'application/json', text };
    },
    close: () => modern.close(),
  };
}

/**
 * The 2025 era: one admitted message at a time. What the SDK would drop or misread is answered
 * here, a tools/call by `cachedCall`, anything else by the SDK.
 */
export function createLegacyEra(service: McpService): (message: unknown, call: McpCall) => Promise<LegacyAnswer> {
  /** Serialised 2025-era answers that never change while the process runs (the registry is fixed at start). */
  const constant = new Map<string, string>();

  async function answerLegacy(message: unknown, call: McpCall): Promise<LegacyAnswer> {
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

    // Awaited here: handing the promise on would cost the cached call two more microtask turns.
    if (method === 'tools/call') return await cachedCall(service, id, params, message, call);
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

  return answerLegacy;
}

type RpcResponse = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/** The client's headers a 2025-era message is handed on with: no protocol header (the door has judged the client's). */
const NO_PROTOCOL_HEADERS: Record<string, string> = {};

/** The web Request the SDK is handed: the protocol headers as the client sent them, JSON accepted. */
function webRequest(headers: IncomingHeaders, body: string): Request {
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

/**
 * initialize as curl sends it: MCP requires `capabilities` and `clientInfo`, which a bare call
 * leaves out; the server uses neither (it never calls the client back), so they default.
 */
function bareInitialize(params: Record<string, unknown>): Record<string, unknown> {
  return { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'unnamed', version: '0' }, ...params };
}
