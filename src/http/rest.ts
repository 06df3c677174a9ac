// The REST door: one GET route per tool under /api/public/v2, generated from the registry.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl } from '../access/access.js';
import type { Clock } from '../kernel/clock.js';
import { ApiError } from '../kernel/errors.js';
import { coerceQuery, parseArgs } from '../tools/params.js';
import { TOOLS } from '../tools/registry.js';
import type { Account, ToolDefinition } from '../tools/tool.js';
import { admit, andThen, identify, rateLimitHeaders, type RefusalDelay, refused, settle, type Eventually, type Gate } from './gate.js';
import type { ToolOutcome, ToolRunner } from './invoke.js';
import { etagMatches } from './response-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admitted caller's account (REST), set by the route's admission hook. */
    account: Account | null;
  }
}

export interface RestDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
  /** How failed authentications are answered late. */
  refusalDelay: RefusalDelay;
}

/** `/stocks/{code}/score` (OpenAPI form) to `/stocks/:code/score` (Fastify form). */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export async function restRoutes(api: FastifyInstance, deps: RestDeps): Promise<void> {
  api.decorateRequest('account', null);
  for (const tool of TOOLS) {
    const route: Route = { tool, deps, parsed: new ParsedArgs() };
    api.get(fastifyPath(tool.path), { onRequest: (request, reply, done) => admitRequest(route, request, reply, done) }, (request, reply) => answer(route, request, reply));
  }
}

/**
 * The admission of a REST call, before the handler: the key, then the call metered and held to
 * its limits (gate.ts). A refusal goes to the error handler as problem+json. Callback style, and
 * no promise at all when the key and the counts are in memory: at tens of thousands of calls a
 * second the promises and microtasks of an async hook show.
 */
function admitRequest(route: Route, request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
  const { tool, deps } = route;
  const pass = (gate: Gate): void => {
    if (gate.caller) request.keyPrefix = gate.caller.prefix;
    if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
    if (!gate.ok) {
      const { error } = gate;
      return deps.refusalDelay.refuse(reply, request.ip, error, () => done(error));
    }
    request.account = gate.account;
    done();
  };
  settle(() => andThen(identify(deps.access, request.headers.authorization, request.ip), (id) => (id.ok ? admit(deps.access, deps.clock, id.auth, tool.name) : refused(id.error))), pass, done);
}

/**
 * A route's accepted arguments by request URL (path and query string). They are a function of
 * the URL alone, so a repeated call (a dashboard polling the same rankings) skips the query's
 * coercion and the schema's parse, and the response cache's key text (ResponseCache.key keeps it
 * for a frozen argument object). Only accepted arguments are kept: a bad call is judged, and
 * refused with the same error, every time. Bounded: long URLs are not kept, and the map is
 * emptied when full.
 */
export class ParsedArgs {
  static readonly MAX_ENTRIES = 1_000;
  static readonly MAX_URL_LENGTH = 512;
  private readonly byUrl = new Map<string, Readonly<Record<string, unknown>>>();

  get size(): number {
    return this.byUrl.size;
  }

  /** The arguments of `url`, parsed by `parse` unless held; `parse` throws for bad ones (nothing kept). */
  of(url: string, parse: () => Record<string, unknown>): Readonly<Record<string, unknown>> {
    const held = this.byUrl.get(url);
    if (held !== undefined) return held;
    // Frozen: one object answers every later call of the URL, so no handler may change it.
    const args = Object.freeze(parse());
    if (url.length <= ParsedArgs.MAX_URL_LENGTH) {
      if (this.byUrl.size >= ParsedArgs.MAX_ENTRIES) this.byUrl.clear();
      this.byUrl.set(url, args);
    }
    return args;
  }
}

interface Route {
  tool: ToolDefinition;
  deps: RestDeps;
  parsed: ParsedArgs;
}

type Answer = Buffer | undefined;

/** The handler of an admitted call (`request.account` set by `admitRequest`): arguments, then the answer. */
function answer(route: Route, request: FastifyRequest, reply: FastifyReply): Eventually<Answer> {
  const { tool, deps } = route;
  const args = route.parsed.of(request.url, () => {
    const schema = tool.restInput ?? tool.input;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const params = (request.params ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(params)) {
      if (name in query) throw new ApiError('invalid_parameter', `parameter '${name}' is part of the path; do not repeat it in the query`, { parameter: name });
    }
    return parseArgs(schema, { ...coerceQuery(schema, query), ...params }) as Record<string, unknown>;
  });
  // A request's `Cache-Control: no-cache` asks for an answer computed now (RFC 9111 5.2.1.4);
  // `X-Cache` says which one was sent, so a caller (and the bench) can tell (see `send`).
  const fresh = /(?:^|,)\s*no-cache\s*(?:,|$)/i.test(request.headers['cache-control'] ?? '');
  return andThen(deps.runner.run(tool, args, request.account as Account, { fresh }), (outcome) => send(tool, request, reply, deps, outcome));
}

/**
 * Which key each cached body was computed for (by its prefix). The cache is shared by every
 * key, but `X-Cache: hit` is said only to the key whose own call computed the body: a hit on a
 * body another key asked for is said `miss`, so the header never tells one key what another
 * asked recently. Weak: an entry the cache drops is forgotten here too.
 */
const computedFor = new WeakMap<object, string>();

/** The answer's headers, and its body or a 304 (sent here; nothing is returned then). */
function send(tool: ToolDefinition, request: FastifyRequest, reply: FastifyReply, deps: RestDeps, { dataset, entry, cached }: ToolOutcome): Answer {
  reply.header('content-type', 'application/json; charset=utf-8');
  if (!tool.cacheable) {
    reply.header('cache-control', 'no-store');
    return entry.bytes;
  }
  // Until the next scheduled refresh; with none scheduled the data can change whenever a
  // refresh is run, so a cache revalidates (ETag) every time.
  const maxAge = dataset.nextRefreshAt === null ? 0 : Math.max(0, Math.floor((dataset.nextRefreshAt.getTime() - deps.clock().getTime()) / 1000));
  const caller = request.keyPrefix ?? '';
  if (!cached) computedFor.set(entry, caller);
  reply.header('x-cache', cached && computedFor.get(entry) === caller ? 'hit' : 'miss');
  reply.header('etag', entry.etag);
  reply.header('cache-control', `private, max-age=${maxAge}`);
  reply.header('vary', 'Authorization');
  if (etagMatches(request.headers['if-none-match'], entry.etag)) {
    // Returning the reply from a handler that did not return a promise would send it twice.
    void reply.code(304).send();
    return undefined;
  }
  return entry.bytes;
}
