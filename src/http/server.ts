// The HTTP server: both doors, operator endpoints, the OpenAPI document and its docs page.
// It knows nothing about finance: tools do the work, this file wires requests to them.

import proxyAddr from '@fastify/proxy-addr';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccessControl } from '../access/access.js';
import { AddressShare } from '../access/address-limit.js';
import type { Clock } from '../kernel/clock.js';
import { ApiError } from '../kernel/errors.js';
import type { ProgressEntry } from '../tools/progress.js';
import type { DatasetHolder } from '../serving/holder.js';
import { docsRoutes } from './docs.js';
import { outageError, RefusalDelay } from './gate.js';
import { ToolRunner } from './invoke.js';
import { hostCheck } from './host.js';
import { MCP_ERRORS } from './mcp-errors.js';
import { mcpRoutes } from './mcp/door.js';
import { oauthRoutes } from '../oauth/routes.js';
import type { OAuthService } from '../oauth/service.js';
import { openApiDocument } from './openapi.js';
import { problemOf } from './problem.js';
import { readiness } from './readiness.js';
import { restRoutes } from './rest.js';
import { webRoutes } from './web.js';
import { replyBytes } from '../wire/json-bytes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key prefix once authenticated, for the request log line. */
    keyPrefix?: string;
  }
}

export interface ServerDeps {
  access: AccessControl;
  holder: DatasetHolder;
  clock: Clock;
  logger: Logger;
  version: string;
  bodyLimit: number;
  maxBatch: number;
  allowedOrigins: readonly string[];
  /**
   * PUBLIC_URL's origin(s), when configured: the discovery documents name the first; a request's
   * `Host` must be one of theirs (or loopback), and a browser `Origin` may be (./host.ts).
   */
  publicOrigins?: readonly string[];
  /** The OAuth authorization server (OAUTH=on); absent or null: bearer API keys only. */
  oauth?: OAuthService | null;
  /** A request must arrive whole within this many ms (slow clients); default 15 s. */
  requestTimeoutMs?: number;
  /** A request's headers must arrive whole within this many ms (slow headers); default 10 s, at most `requestTimeoutMs`. */
  headersTimeoutMs?: number;
  /** Whose X-Forwarded-For gives the client address: true for any sender, or the proxies' addresses or CIDR ranges. */
  trustProxy?: boolean | string[];
  /** Open connections accepted at once (`MAX_CONNECTIONS`); 0 or absent: no cap. */
  maxConnections?: number;
  /** Open connections one peer address may hold (`MAX_CONNECTIONS_PER_ADDRESS`), trusted proxies excepted; 0 or absent: no cap. */
  maxConnectionsPerAddress?: number;
  /** How long a failed authentication's answer waits (`AUTH_FAILURE_DELAY_MS`); 0 or absent: none. */
  authFailureDelayMs?: number;
  /** Answers of one client address waiting at once (`MAX_WAITING_REFUSALS_PER_ADDRESS`); 0: no cap of its own; absent: `RefusalDelay.MAX_HELD_PER_ADDRESS`. */
  maxWaitingRefusalsPerAddress?: number;
  /** Readiness checks (database, Redis); each returns null when healthy, else a reason. */
  readinessChecks?: { name: string; check: () => Promise<string | null> }[];
  /** What start-up is doing while no dataset is served, for /readyz. */
  startupPhase?: () => string;
  /** Every source's progress now (the refresh's ProgressBoard `snapshot()`), for /readyz and health. */
  progress?: () => readonly ProgressEntry[];
}

/** A readiness check that has not answered by then counts as failed: /readyz answers fast. */
const CHECK_TIMEOUT_MS = 1_000;

function timed(name: string, check: () => Promise<string | null>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`${name} did not answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS)));
  return Promise.race([check().catch(() => `${name} check failed`), late]).finally(() => clearTimeout(timer));
}

/** Every answer without a policy of its own: a JSON body loads nothing and is never framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers of every answer (API, problem, operator, pages): no content sniffing; an error is
 * never stored by a cache (a success keeps the Cache-Control its route set, e.g. max-age); no
 * framing, and nothing loaded by a document whose route did not set a policy of its own (the
 * dashboard and /docs do).
 */
function answerHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
  if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_CONTENT_SECURITY_POLICY);
}

/**
 * The raw response to a request the HTTP parser refused: 408 for a request not received in
 * time, 431 for headers over the limit, else 400 `invalid_parameter` as problem+json. Written
 * to the socket before any request exists, with the headers every error carries.
 */
export function clientErrorResponse(code: string | undefined): string {
  const [status, reason, body] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', '{"error":"Request Timeout","message":"the request was not received in time","statusCode":408}']
      : code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', '{"error":"Request Header Fields Too Large","message":"the request headers exceed the size limit","statusCode":431}']
        : [
            400,
            'Bad Request',
            JSON.stringify(
              problemOf(new ApiError('invalid_parameter', 'the request is not valid HTTP: its path must be ASCII, with any other character percent-encoded (UTF-8), and its headers well formed')),
            ),
          ];
  const type = status === 400 ? 'application/problem+json' : 'application/json';
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Security-Policy: ${API_CONTENT_SECURITY_POLICY}\r\nConnection: close\r\n\r\n${body}`
  );
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
let requestCounter = 0;

/**
 * At most `perAddress` open connections from one peer address: past it a new connection from
 * there is closed as soon as it is accepted, before it sends a byte that is parsed, so one
 * address (slow headers, or connections held idle) cannot take every place `MAX_CONNECTIONS`
 * gives all clients. Counted by the socket's peer address, the only one known when a connection
 * opens; a trusted proxy's (TRUST_PROXY, decided as Fastify decides request.ip) is not capped,
 * since it carries many clients.
 */
function capPerAddress(server: Server, perAddress: number, trustProxy: boolean | string[]): void {
  const trusted: (address: string) => boolean =
    trustProxy === true ? () => true : Array.isArray(trustProxy) && trustProxy.length > 0 ? ((fn) => (address: string) => fn(address, 0))(proxyAddr.compile(trustProxy)) : () => false;
  const open = new AddressShare(perAddress);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) return;
    if (!open.take(address)) {
      socket.destroy();
      return;
    }
    socket.once('close', () => open.release(address));
  });
}

export async function buildServer(deps: ServerDeps) {
  const requestTimeout = deps.requestTimeoutMs ?? 15_000;
  const headersTimeout = Math.min(deps.headersTimeoutMs ?? 10_000, requestTimeout);
  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's own two lines per request are off; onResponse below writes our one line.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit,
    // Slow clients: a request's headers must arrive within 10 s and the whole request within
    // 15 s, and idle sockets close after 5 s. Node checks both every connectionsCheckingInterval
    // (default 30 s). Fastify sets requestTimeout on the server it made, so Node's headersTimeout
    // would keep its own default (60 s): it is given here.
    requestTimeout,
    http: { connectionsCheckingInterval: 1_000, headersTimeout, requestTimeout },
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    // A path that is not valid percent-encoding, or a path segment longer than the router's
    // limit, fails before routing; answer it as problem+json too, not Fastify's own body.
    frameworkErrors: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const apiError =
        err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError('invalid_parameter', 'the request path is not valid (bad percent-encoding or a segment longer than 100 characters)')
          : new ApiError('internal_error', `an internal error occurred; quote request id ${request.id}`);
      // Answered before routing: the hooks do not run for it.
      answerHeaders(reply.code(apiError.status));
      void reply.type('application/problem+json').send(JSON.stringify(problemOf(apiError)));
    },
    // A request Node's HTTP parser refuses (a raw non-ASCII byte in the path, a malformed header)
    // never reaches routing: answered as problem+json too. A timeout (408) and headers over the
    // size limit (431) keep their statuses; a reset connection gets nothing.
    clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      socket.write(clientErrorResponse(err.code));
      socket.destroy(err);
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `r${Date.now().toString(36)}${(++requestCounter).toString(36)}`;
    },
    routerOptions: { ignoreTrailingSlash: true },
    // The client address (request.ip) the failed-authentication limit counts by.
    trustProxy: deps.trustProxy ?? false,
  });
  // Every JSON reply is written by the one JSON writer (src/wire/json-bytes.ts).
  app.setReplySerializer(replyBytes);
  // Past the cap Node closes a new connection at once, before it costs a parse or a key check.
  if (deps.maxConnections !== undefined && deps.maxConnections > 0) app.server.maxConnections = deps.maxConnections;
  if (deps.maxConnectionsPerAddress !== undefined && deps.maxConnectionsPerAddress > 0) capPerAddress(app.server, deps.maxConnectionsPerAddress, deps.trustProxy ?? false);
  const runner = new ToolRunner(deps.holder, deps.progress);
  const perAddress = deps.maxWaitingRefusalsPerAddress;
  const refusalDelay = new RefusalDelay(deps.authFailureDelayMs ?? 0, RefusalDelay.MAX_HELD, perAddress === undefined ? RefusalDelay.MAX_HELD_PER_ADDRESS : perAddress > 0 ? perAddress : Number.POSITIVE_INFINITY);

  // The per-request hooks take a `done` callback rather than returning a promise: at tens of
  // thousands of requests a second the promises and microtasks of four async hooks show.
  const hostAllowed = hostCheck(deps.publicOrigins ?? []);
  app.addHook('onRequest', (request, reply, done) => {
    // DNS rebinding, and requests meant for another site: with a public origin configured, a
    // Host that is neither its nor loopback is refused (the probes /healthz and /readyz, which
    // a load balancer sends to the instance's address, excepted).
    if (hostAllowed !== null && !hostAllowed(request.host) && request.url !== '/healthz' && request.url !== '/readyz') {
      reply.code(403);
      if (request.url.startsWith('/api/mcp')) void reply.type('application/json').send(`{"jsonrpc":"2.0","id":null,"error":{"code":${MCP_ERRORS.forbidden},"message":"host not allowed"}}`);
      else void reply.type('application/problem+json').send(JSON.stringify(problemOf(new ApiError('forbidden', 'this service does not answer for that host name'))));
      return;
    }
    // Node keeps only the first of several Authorization headers; a proxy in front may use
    // another. An ambiguous credential is treated as a malformed one (401 on both doors).
    const rawHeaders = request.raw.rawHeaders;
    let count = 0;
    for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'authorization') count++;
    if (count > 1) request.headers.authorization = '';
    // Node's requestTimeout stops counting once the headers are in, so a body dribbled a byte
    // at a time (slow POST) could hold a socket open indefinitely: the body gets the same deadline.
    // Only a request that announces a body can have one (RFC 9112 6.3); a GET is not yet
    // `complete` here either, but it needs no timer (a timer and two listeners per request showed).
    const raw = request.raw;
    const announcesBody = request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
    if (announcesBody && !raw.complete) {
      const timer = setTimeout(() => {
        if (!raw.complete) raw.socket.destroy();
      }, requestTimeout);
      timer.unref();
      const clear = () => clearTimeout(timer);
      raw.once('end', clear);
      raw.once('close', clear);
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    answerHeaders(reply);
    done(null, payload);
  });
  // One structured line per request (request.log already carries `reqId`). The route pattern
  // is logged, never the raw URL (a caller may put a key in a query string), and never a header.
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        keyPrefix: request.keyPrefix ?? null,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    let apiError: ApiError;
    const outage = outageError(err);
    if (err instanceof ApiError) apiError = err;
    else if (outage !== null) {
      request.log.warn({ errName: err.name, errCode: (err as FastifyError).code ?? null }, 'dependency unreachable');
      apiError = outage;
    } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiError = new ApiError('payload_too_large', `request bodies are limited to ${deps.bodyLimit} bytes`);
    else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') apiError = new ApiError('unsupported_media_type', 'send Content-Type: application/json');
    else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      apiError = new ApiError('invalid_parameter', 'the request could not be read');
    } else {
      // Unexpected: log the error class and code only. Messages of driver errors can quote
      // SQL or values, stacks quote paths; neither goes to a log line or a body.
      request.log.error({ errName: err.name, errCode: (err as FastifyError).code ?? null }, 'unhandled error');
      apiError = new ApiError('internal_error', `an internal error occurred; quote request id ${request.id}`);
    }
    if (apiError.code === 'unauthorized') reply.header('www-authenticate', 'Bearer realm="api", error="invalid_token"');
    if (apiError.extra.retryAfter !== undefined) reply.header('retry-after', String(apiError.extra.retryAfter));
    return reply.code(apiError.status).type('application/problem+json').send(JSON.stringify(problemOf(apiError)));
  });

  app.setNotFoundHandler((request, reply) => {
    const err = new ApiError('not_found', `no endpoint ${request.method} at this path; see /api/public/v2/openapi.json`);
    return reply.code(404).type('application/problem+json').send(JSON.stringify(problemOf(err)));
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    const checks = deps.readinessChecks ?? [];
    const results = await Promise.all(checks.map(({ name, check }) => timed(name, check)));
    const failedChecks = checks.flatMap(({ name }, i) => (results[i] == null ? [] : [{ name, reason: results[i] as string }]));
    // Error texts (a source's, a check's own words) only for a caller with a valid key; the key
    // is looked at only when one is sent, and a store that does not answer means no details.
    const header = request.headers.authorization;
    const detailed = header !== undefined && header !== '' && (await Promise.resolve(deps.access.authenticate(header, request.ip)).then((a) => a.ok, () => false));
    const { httpStatus, body } = readiness({
      data: deps.holder.current,
      startupPhase: deps.startupPhase?.() ?? null,
      failedChecks,
      progress: deps.progress?.() ?? [],
      detailed,
    });
    return reply.code(httpStatus).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(body));
  });

  const openapi = JSON.stringify(openApiDocument(deps.version));
  await app.register(
    async (api) => {
      api.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi));
      await restRoutes(api, { access: deps.access, runner, clock: deps.clock, refusalDelay });
    },
    { prefix: '/api/public/v2' },
  );
  await app.register(mcpRoutes, { access: deps.access, runner, clock: deps.clock, maxBatch: deps.maxBatch, allowedOrigins: [...deps.allowedOrigins, ...(deps.publicOrigins ?? [])], version: deps.version, refusalDelay, oauth: deps.oauth ?? null });
  await app.register(oauthRoutes, { oauth: deps.oauth ?? null, origin: deps.publicOrigins?.[0] ?? null });

  await app.register(docsRoutes);
  await app.register(webRoutes, {});
  return app;
}
