// The OpenAPI 3.1 document, generated from the tool registry's zod schemas: the same
// schemas that validate requests, so the document cannot drift from the behaviour.

import { z } from 'zod';
import { ERROR_STATUS } from '../kernel/errors.js';
import { TOOLS } from '../tools/registry.js';

type Json = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    parameter: { type: 'string', description: 'The parameter at fault (invalid_parameter)' },
    delistedOn: { type: 'string', description: 'not_found of a stock that left its market: its last trading day (YYYY-MM-DD); its history is kept and served for days it was listed' },
  },
};

const problem = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const rateLimitHeaderDocs = {
  'RateLimit-Policy': { description: 'Quota policies (IETF draft): daily calls and per-second burst', schema: { type: 'string' } },
  RateLimit: { description: 'Remaining daily calls and seconds to the reset (IETF draft)', schema: { type: 'string' } },
};

export function openApiDocument(version: string): Json {
  const paths: Json = {};
  for (const tool of TOOLS) {
    const input = jsonSchema(tool.restInput ?? tool.input, 'input') as { properties?: Record<string, Json>; required?: string[] };
    const parameters = Object.entries(input.properties ?? {}).map(([name, schema]) => {
      const inPath = tool.path.includes(`{${name}}`);
      const { description, ...rest } = schema as { description?: string } & Json;
      const examples = Object.fromEntries(
        (tool.examples ?? []).flatMap((e, i) => (e.query[name] === undefined ? [] : [[`example${i + 1}`, { summary: e.summary, value: e.query[name] }]])),
      );
      return {
        name,
        in: inPath ? 'path' : 'query',
        required: inPath || (input.required ?? []).includes(name),
        ...(description === undefined ? {} : { description }),
        schema: rest,
        ...(Object.keys(examples).length > 0 ? { examples } : {}),
      };
    });
    const responses: Json = {
      '200': {
        description: 'OK',
        headers: tool.cacheable
          ? {
              ...rateLimitHeaderDocs,
              ETag: { schema: { type: 'string' } },
              'Cache-Control': { schema: { type: 'string' } },
              'X-Cache': { description: 'hit: served from the response cache, from an entry this key\'s own call filled; miss: computed for this request, or cached by another key\'s call (send Cache-Control: no-cache to ask for an answer computed now)', schema: { type: 'string', enum: ['hit', 'miss'] } },
            }
          : rateLimitHeaderDocs,
        content: { 'application/json': { schema: jsonSchema(tool.output, 'output') } },
      },
      '400': problem('invalid_parameter: a parameter is malformed or out of range; detail names it and the allowed values'),
      '401': problem('unauthorized: missing, malformed, unknown or revoked key'),
      '429': problem('quota_exceeded or rate_limited; see Retry-After'),
      '503': problem('data_unavailable: the data has not been loaded yet; service_unavailable: the database or Redis is not reachable right now (Retry-After)'),
    };
    if (tool.cacheable) responses['304'] = { description: 'Not modified (If-None-Match matched the ETag)' };
    if (tool.path.includes('{code}')) responses['404'] = problem('not_found: no stock with that code in the market tried, or a stock that has left its market (delistedOn: its last trading day)');
    paths[`/api/public/v2${tool.path}`] = {
      get: {
        operationId: tool.name,
        summary: tool.title,
        description:
          tool.examples === undefined
            ? tool.description
            : [
                tool.description,
                '',
                'Examples:',
                ...tool.examples.map((e) => `- ${e.summary}: \`GET /api/public/v2${tool.path}?${new URLSearchParams(e.query as Record<string, string>).toString()}\``),
              ].join('\n'),
        tags: [tool.cacheable ? 'data' : 'account'],
        security: [{ bearerAuth: [] }],
        parameters,
        responses,
      },
    };
  }
  const plain = (description: string): Json => ({ get: { summary: description, security: [], responses: { '200': { description: 'OK' } } } });
  paths['/healthz'] = plain('Liveness: the process answers');
  paths['/readyz'] = {
    get: {
      summary:
        'Readiness: 200 (`ready`, or `degraded` when a source failed) once stocks are served; 503 while none is (`loading`, or `failed` when every source failed) or while the database or Redis does not answer (`unavailable`). ' +
        'The body gives each source\'s last run, next try and progress; error texts only with a valid key (docs/deploy.md)',
      security: [],
      responses: { '200': { description: 'ready or degraded' }, '503': { description: 'loading, failed or unavailable' } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stock scoring and export data service',
      version,
      description:
        'Read-only data for Korean and US listed stocks and Korean exports. Every tool is also callable as JSON-RPC 2.0 / MCP at POST /api/mcp. ' +
        'Errors are RFC 9457 problem+json with a stable `code`.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: sk_live_...' } },
      schemas: { Problem: problemSchema },
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}
