// The MCP door's part of the admission path (gate.ts): the Origin allow-list and the key, checked
// once per HTTP request before the body is read (401 with WWW-Authenticate); every message
// metered before it is dispatched; a lone message refused for quota, burst or by an outage
// answered with HTTP 429 or 503 and Retry-After.
//
// The SDK's Origin helper (`validateOriginHeader`) and bearer challenge
// (`bearerAuthChallengeResponse`) are not used: the first matches hostnames whatever the scheme
// and port (an `ALLOWED_ORIGINS` entry is a whole origin), admits an empty Origin and knows only
// 127.0.0.1 of 127.0.0.0/8; the second answers with an OAuth error body and its own
// challenge, where the door answers a JSON-RPC error (`-32001`, `-32003`) and the challenges of
// docs/oauth.md (docs/architecture.md, "One tool, two doors").

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../../access/access.js';
import type { Clock } from '../../kernel/clock.js';
import type { OAuthService } from '../../oauth/service.js';
import type { ApiError } from '../../kernel/errors.js';
import { admit, identify, rateLimitHeaders, settle, type CallOf, type Identity, type RefusalDelay } from '../gate.js';
import { MCP_ERRORS, rpcErrorOf } from '../mcp-errors.js';
import { buildTemplates, templateToolOf } from '../mcp-templates.js';
import { TOOLS } from '../../tools/registry.js';
import { TOOL_NAMES } from './cached-call.js';
import { errorAnswer, validId, type Answer, type Id, type Incoming } from './framing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key of an MCP request, set by the door's request hook before the body is read. */
    auth: AuthResult | null;
  }
}

export interface AdmissionDeps {
  access: AccessControl;
  clock: Clock;
  allowedOrigins: readonly string[];
  /** How failed authentications are answered late. */
  refusalDelay: RefusalDelay;
  /** The OAuth authorization server (OAUTH=on): its access tokens are admitted as their keys. */
  oauth?: OAuthService | null;
}

export type Gate = Awaited<ReturnType<typeof admit>>;

export interface Admission {
  /** Step one, the route's request hook: the Origin, then the key (`request.auth`). */
  checkRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  /** The gate for one message, with its rate-limit headers set; a promise only when metering waits (a key and counts in memory admit without a microtask). */
  admitted(auth: AuthResult, message: unknown, reply: FastifyReply): Gate | Promise<Gate>;
  /** A refused key's refusal, answered after the refusal delay. */
  refuseLate(reply: FastifyReply, error: ApiError): Promise<FastifyReply>;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

export function createAdmission(app: FastifyInstance, deps: AdmissionDeps): Admission {
  /** The gate for one message, with its rate-limit headers set; a promise only when metering waits (a key and counts in memory admit without a microtask). */
  function admitted(auth: AuthResult, message: unknown, reply: FastifyReply): Gate | Promise<Gate> {
    const withHeaders = (gate: Gate): Gate => {
      if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
      return gate;
    };
    const pending = admit(deps.access, deps.clock, auth, meteredAs(message));
    return pending instanceof Promise ? pending.then(withHeaders) : withHeaders(pending);
  }

  // With OAuth on, a 401 or 403 names where the protected resource metadata is (RFC 9728 5.1),
  // so a connector can discover the authorization server from it.
  const oauth = deps.oauth;
  if (oauth) {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', oauth.challenge(request.headers.authorization !== undefined));
      done(null, payload);
    });
  }

  /** A refused key's refusal, answered after the refusal delay. */
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

  return { checkRequest, admitted, refuseLate };
}

/** The HTTP status of a lone message refused by the gate or met by an outage: 503 when a dependency is away, else 429; with Retry-After. */
export function refusedMessage(reply: FastifyReply, refusal: ApiError): FastifyReply {
  return reply.code(refusal.status === 503 ? 503 : 429).header('retry-after', String(refusal.extra.retryAfter ?? 1));
}

/** A refusal of the whole HTTP request: its status, headers and the JSON-RPC error (`id: null`). */
export function refuse(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.code === 'unauthorized') reply.header('www-authenticate', 'Bearer realm="api", error="invalid_token"');
  if (error.extra.retryAfter !== undefined) reply.header('retry-after', String(error.extra.retryAfter));
  return reply.code(error.status).send(refusalAnswer(null, error));
}

export function refusalAnswer(id: Id, error: ApiError): string {
  const rpc = rpcErrorOf(error);
  return errorAnswer(id, rpc.code, rpc.message, rpc.data);
}

/** The answer to a message the gate refused: its error under its id; nothing for a notification. */
export function answerRefused(message: unknown, error: ApiError): Answer {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return refusalAnswer(null, error);
  const msg = message as Incoming;
  if (!('id' in msg)) return null;
  return refusalAnswer(validId(msg.id) ? msg.id : null, error);
}

/** The resource templates whose reads are tool answers (mcp-templates.ts). */
const TEMPLATES = buildTemplates(TOOLS);

/**
 * How a message is metered: a tools/call of a registered tool as that tool, a resources/read of
 * a template that answers with a tool's answer (stock://...) as that tool, anything else
 * (completions included) as a protocol message.
 */
function meteredAs(message: unknown): CallOf {
  if (message === null || typeof message !== 'object') return null;
  const msg = message as Incoming;
  if (typeof msg.params !== 'object' || msg.params === null) return null;
  if (msg.method === 'tools/call') {
    const name = (msg.params as { name?: unknown }).name;
    return typeof name === 'string' && TOOL_NAMES.has(name) ? name : null;
  }
  if (msg.method === 'resources/read') {
    const uri = (msg.params as { uri?: unknown }).uri;
    return typeof uri === 'string' ? templateToolOf(TEMPLATES, uri) : null;
  }
  return null;
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
