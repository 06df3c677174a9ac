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
    api.get(fastifyPath(tool.path), (request, reply) => handle(tool, request, reply, deps));
  }
}

type Answer = Buffer | undefined;

/**
 * A cached answer to a key this process knows, with its counts in memory, is sent without
 * waiting for anything (each await of the general path cost microseconds of a call that takes
 * tens); anything else (a key to look up, counts in the database or Redis, a tool to run) goes
 * the general way. The two ways answer the same.
 */
function handle(tool: ToolDefinition, request: FastifyRequest, reply: FastifyReply, deps: RestDeps): Answer | Promise<Answer> {
  const auth = deps.access.authenticateNow(request.headers.authorization);
  const gate = auth === undefined ? undefined : admitCallNow(deps.access, deps.clock, auth, tool.name);
  if (gate === undefined) return admitThenAnswer(tool, request, reply, deps);
  return answer(tool, request, reply, deps, gate);
}

async function admitThenAnswer(tool: ToolDefinition, request: FastifyRequest, reply: FastifyReply, deps: RestDeps): Promise<Answer> {
  const auth = await deps.access.authenticate(request.headers.authorization);
  return answer(tool, request, reply, deps, await admitCall(deps.access, deps.clock, auth, tool.name));
}

function answer(tool: ToolDefinition, request: FastifyRequest, reply: FastifyReply, deps: RestDeps, gate: Gate): Answer | Promise<Answer> {
  if (gate.caller) request.keyPrefix = gate.caller.prefix;
  if (gate.admission) reply.headers(rateLimitHeaders(gate.admission));
  if (!gate.ok) throw gate.error;

  const schema = tool.restInput ?? tool.input;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(params)) {
    if (name in query) throw new ApiError('invalid_parameter', `parameter '${name}' is part of the path; do not repeat it in the query`, { parameter: name });
  }
  const args = parseArgs(schema, { ...coerceQuery(schema, query), ...params }) as Record<string, unknown>;
  // A request's `Cache-Control: no-cache` asks for an answer computed now (RFC 9111 5.2.1.4);
  // `X-Cache` says which one was sent, so a caller (and the bench) can tell.
  const fresh = /(?:^|,)\s*no-cache\s*(?:,|$)/i.test(request.headers['cache-control'] ?? '');
  const held = deps.runner.runNow(tool, args, { fresh });
  if (held !== undefined) return send(tool, request, reply, deps, held);
  return deps.runner.run(tool, args, gate.account, { fresh }).then((outcome) => send(tool, request, reply, deps, outcome));
}

/** The answer's headers, and its body or a 304 (sent here; nothing is returned then). */
function send(tool: ToolDefinition, request: FastifyRequest, reply: FastifyReply, deps: RestDeps, { dataset, entry, cached }: ToolOutcome): Answer {
  reply.header('content-type', 'application/json; charset=utf-8');
  if (!tool.cacheable) {
    reply.header('cache-control', 'no-store');
    return entry.bytes;
  }
  const maxAge = Math.max(0, Math.floor((dataset.nextRefreshAt.getTime() - deps.clock().getTime()) / 1000));
  reply.header('x-cache', cached ? 'hit' : 'miss');
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
