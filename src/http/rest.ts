// The REST door: one GET route per tool under /api/public/v2, generated from the registry.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl } from '../access/access.js';
import type { Clock } from '../access/clock.js';
import { ApiError } from '../tools/errors.js';
import { coerceQuery, parseArgs } from '../tools/params.js';
import { TOOLS } from '../tools/registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import { admitCall, admitCallNow, rateLimitHeaders, type Gate } from './gate.js';
import type { ToolOutcome, ToolRunner } from './invoke.js';
import { etagMatches } from './response-cache.js';

export interface RestDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
}

/** `/stocks/{code}/score` (OpenAPI form) to `/stocks/:code/score` (Fastify form). */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export async function restRoutes(api: FastifyInstance, deps: RestDeps): Promise<void> {
  for (const tool of TOOLS) {
    const route: Route = { tool, deps, parsed: new ParsedArgs() };
    api.get(fastifyPath(tool.path), (request, reply) => handle(route, request, reply));
  }
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

/**
 * A cached answer to a key this process knows, with its counts in memory, is sent without
 * waiting for anything (each await of the general path cost microseconds of a call that takes
 * tens); anything else (a key to look up, counts in the database or Redis, a tool to run) goes
 * the general way. The two ways answer the same.
 */
function handle(route: Route, request: FastifyRequest, reply: FastifyReply): Answer | Promise<Answer> {
  const { tool, deps } = route;
  const auth = deps.access.authenticateNow(request.headers.authorization);
  const gate = auth === undefined ? undefined : admitCallNow(deps.access, deps.clock, auth, tool.name);
  if (gate === undefined) return admitThenAnswer(route, request, reply);
  return answer(route, request, reply, gate);
}

async function admitThenAnswer(route: Route, request: FastifyRequest, reply: FastifyReply): Promise<Answer> {
  const { tool, deps } = route;
  const auth = await deps.access.authenticate(request.headers.authorization);
  return answer(route, request, reply, await admitCall(deps.access, deps.clock, auth, tool.name));
}

function answer(route: Route, request: FastifyRequest, reply: FastifyReply, gate: Gate): Answer | Promise<Answer> {
  const { tool, deps } = route;
  if (gate.caller) request.keyPrefix = gate.caller.prefix;
  if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
  if (!gate.ok) throw gate.error;

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
  const held = deps.runner.runNow(tool, args, { fresh });
  if (held !== undefined) return send(tool, request, reply, deps, held);
  return deps.runner.run(tool, args, gate.account, { fresh }).then((outcome) => send(tool, request, reply, deps, outcome));
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
