// The MCP server of the JSON-RPC door: the official SDK v2's McpServer over the one tool registry,
// with resources, resource templates and completions (mcp-templates.ts) and prompts, and the MCP Apps view for a client that renders it (mcp-apps.ts). The SDK serves each request with an instance of its own
// (`factory`, its per-request model), for both protocol eras: initialize and version negotiation
// (2025-06-18, 2025-11-25), server/discover and the per-request envelope (2026-07-28), ping,
// tools/list (from each tool's JSON Schema and annotations), resources/*, prompts/*,
// completion/complete, unknown methods (-32601), request shapes, and the 2026 result fields (`resultType`, `ttlMs` /
// `cacheScope`).
//
// A tool's run is `callTool`, the one implementation both eras use: the call is counted by the
// door before its arguments are judged (mcp/admission.ts meters every message), the arguments are judged by
// the registry's validator with its messages naming the allowed values (`parseArgs`, as REST),
// and the answer comes from the response cache as the serialised tools/call result. The SDK is
// given each tool's JSON Schema with a validator that accepts anything (`ARGUMENTS_JUDGED_BY_TOOL`),
// so its tools/list shows the real schema and its tools/call hands the arguments on to `callTool`.

import {
  completable,
  fromJsonSchema,
  McpServer,
  ProtocolError,
  type AuthInfo,
  type CacheHint,
  type CallToolResult,
  type jsonSchemaValidator,
  type JsonSchemaValidator,
  type McpRequestContext,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthResult } from '../access/access.js';
import type { Clock } from '../kernel/clock.js';
import { mcpToolResult } from '../tools/budget.js';
import { ApiError } from '../kernel/errors.js';
import { parseArgs } from '../tools/params.js';
import type { Account, ToolDefinition } from '../tools/tool.js';
import { outageError } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { MCP_ERRORS, RpcError, rpcErrorOf, unknownToolMessage } from './mcp-errors.js';
import { buildPrompts } from './mcp-prompts.js';
import { RESOURCES } from './mcp-resources.js';
import { APPS_SERVER_EXTENSION, builtView, registerView, rendersApps, viewMeta } from './mcp-apps.js';
import { buildTemplates, completer, registerTemplates } from './mcp-templates.js';
import { jsonSchema } from './openapi.js';

/** One JSON-RPC message as the door admitted it: handed to the SDK as `authInfo.extra.call`, read by `callTool`. */
export interface McpCall {
  auth: AuthResult;
  /** The account the gate admitted the message with (mcp/admission.ts meters every message before dispatch). */
  account: Account | null;
  request: FastifyRequest;
  /**
   * A tools/call's arguments as the client sent them. JSON.parse keeps a `__proto__`,
   * `constructor` or `prototype` key as an own property, so the registry's validator refuses it
   * as an unknown parameter (as REST does); the SDK's own parse of the request drops it.
   */
  arguments: unknown;
  /** The message as the client sent it: its `_meta` may declare that its client renders MCP Apps (mcp-apps.ts), read only when a server is built for it. */
  message: unknown;
}

/** What a tools/call comes to. */
export type ToolOutcome =
  /** The serialised CallToolResult (the response cache's `mcpResult`), sent as it is. */
  | { kind: 'result'; bytes: Buffer }
  /** Bad arguments or an unknown code: an `isError` result, so the model can correct itself. */
  | { kind: 'tool-error'; result: CallToolResult }
  /** A JSON-RPC error; `refusal` when a dependency is away (a lone message is then an HTTP 503). */
  | { kind: 'rpc-error'; error: RpcError; refusal: ApiError | null };

export interface McpServerDeps {
  runner: ToolRunner;
  clock: Clock;
  version: string;
  tools: readonly ToolDefinition[];
}

export interface McpService {
  /** A fresh McpServer for one request (createMcpHandler and the stateless 2025 leg call it). */
  factory: McpServerFactory;
  callTool(name: string, call: McpCall): Promise<ToolOutcome>;
}

const SERVER_INFO = { name: 'stock-data-service', title: 'Stock scoring and export data' };
const INSTRUCTIONS =
  'Read-only data on Korean (6-digit codes) and US (tickers) listed stocks and Korean exports. get_rankings and ' +
  'get_stock_score are formula results; snapshot, valuation band, percentile and price history are raw material without verdicts. ' +
  'Resources explain the formula, the metrics, the sectors and the data sources; prompts show the common jobs.';

/**
 * Cache hints of the 2026-07-28 results (`ttlMs` / `cacheScope`). The lists and the constant
 * resources never change while the process runs (the registry is fixed at start); an hour lets a
 * client see a new deployment's lists within the hour. They are the same for every key, so a
 * shared cache may keep them (`public`). The resources built from the served data (sectors,
 * sources) change at each refresh: they may be kept until the next refresh is due.
 */
export const LIST_TTL_MS = 3_600_000;
const LIST_HINT: CacheHint = { ttlMs: LIST_TTL_MS, cacheScope: 'public' };

/** The SDK's validator for tool arguments: accepts anything, because `callTool` judges them with the registry's messages. */
const ARGUMENTS_JUDGED_BY_TOOL: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

const callOf = (authInfo: AuthInfo | undefined): McpCall => authInfo?.extra?.call as McpCall;

/** The AuthInfo a message is handed to the SDK with: the key's prefix as the client id, the call for the handlers. */
export function authInfoOf(call: McpCall): AuthInfo {
  return { token: '', clientId: call.auth.ok ? call.auth.caller.prefix : '', scopes: [], extra: { call } };
}

export function createMcpService(deps: McpServerDeps): McpService {
  const tools = new Map(deps.tools.map((tool) => [tool.name, tool]));
  const toolNames = [...tools.keys()];
  // Built once: each request's server registers the same schema objects.
  const schemas = new Map(
    deps.tools.map((tool) => [
      tool.name,
      {
        input: fromJsonSchema<Record<string, unknown>>(jsonSchema(tool.input, 'input'), ARGUMENTS_JUDGED_BY_TOOL),
        output: fromJsonSchema<Record<string, unknown>>(jsonSchema(tool.output, 'output'), ARGUMENTS_JUDGED_BY_TOOL),
      },
    ]),
  );
  const dataset = () => deps.runner.dataset();
  const prompts = buildPrompts(deps.tools).map((prompt) => ({
    prompt,
    argsSchema: Object.fromEntries(
      Object.entries(prompt.args).map(([name, arg]) => {
        const described = z.string().max(500).describe(arg.description);
        const field = arg.complete === undefined ? described : completable(described, completer(arg.complete, dataset));
        return [name, arg.optional === true ? field.optional() : field];
      }),
    ),
  }));
  const templates = buildTemplates(deps.tools);

  /** A template read's answer: the tool's JSON for the message's account, through the runner and its response cache. */
  async function templateAnswer(tool: ToolDefinition, args: Record<string, unknown>, authInfo: AuthInfo | undefined): Promise<string> {
    // A template read is metered as its tool's call (mcp/admission.ts), so it has an account.
    const account = callOf(authInfo).account;
    if (account === null) throw new ProtocolError(-32603, 'Internal error: the read was not admitted');
    const outcome = deps.runner.run(tool, args, account);
    const { entry } = outcome instanceof Promise ? await outcome : outcome;
    return entry.bytes.toString('utf8');
  }

  const internalError = (call: McpCall): ToolOutcome => ({ kind: 'rpc-error', error: new RpcError(-32603, `Internal error; quote request id ${call.request.id}`), refusal: null });

  function failure(err: unknown, call: McpCall): ToolOutcome {
    if (err instanceof RpcError) return { kind: 'rpc-error', error: err, refusal: null };
    if (err instanceof ApiError) {
      if (err.code === 'data_unavailable') return { kind: 'rpc-error', error: new RpcError(MCP_ERRORS.dataUnavailable, err.detail, { code: err.code }), refusal: null };
      return { kind: 'tool-error', result: { content: [{ type: 'text', text: `${err.code}: ${err.detail}` }], isError: true } };
    }
    const outage = outageError(err);
    if (outage !== null) {
      call.request.log.warn({ errName: (err as Error).name }, 'dependency unreachable');
      return { kind: 'rpc-error', error: rpcErrorOf(outage), refusal: outage };
    }
    call.request.log.error({ errName: (err as Error).name }, 'tool failed');
    return internalError(call);
  }

  async function callTool(name: string, call: McpCall): Promise<ToolOutcome> {
    const tool = tools.get(name);
    if (tool === undefined) return { kind: 'rpc-error', error: new RpcError(-32602, unknownToolMessage(name, toolNames)), refusal: null };
    // Only a message metered as this tool has an account (mcp/admission.ts).
    if (call.account === null) return internalError(call);
    try {
      const args = parseArgs(tool.input, call.arguments ?? {}) as Record<string, unknown>;
      // A cached answer comes at once (ToolRunner.run): each await costs a share of a cached call.
      const outcome = deps.runner.run(tool, args, call.account);
      const { entry } = outcome instanceof Promise ? await outcome : outcome;
      return { kind: 'result', bytes: (entry.mcpResult ??= Buffer.from(mcpToolResult(tool, entry.bytes.toString('utf8')), 'utf8')) };
    } catch (err) {
      return failure(err, call);
    }
  }

  /** A tools/call through the SDK (the 2026 era): the outcome as the SDK's tool handler returns it. */
  async function sdkToolCall(name: string, authInfo: AuthInfo | undefined): Promise<CallToolResult> {
    const outcome = await callTool(name, callOf(authInfo));
    if (outcome.kind === 'result') return JSON.parse(outcome.bytes.toString('utf8')) as CallToolResult;
    if (outcome.kind === 'tool-error') return outcome.result;
    // McpServer answers every error a tool handler throws as an `isError` result with its message.
    throw outcome.error;
  }

  function factory(ctx: McpRequestContext): McpServer {
    // The MCP Apps view, for a client that renders it (mcp-apps.ts); null for any other client.
    const view = ctx.authInfo !== undefined && rendersApps(callOf(ctx.authInfo)?.message) ? builtView() : null;
    const server = new McpServer(
      { ...SERVER_INFO, version: deps.version },
      {
        instructions: INSTRUCTIONS,
        // Stateless: no client is ever told that a list changed.
        capabilities: {
          tools: { listChanged: false },
          resources: { listChanged: false },
          prompts: { listChanged: false },
          ...(view === null ? {} : { extensions: APPS_SERVER_EXTENSION }),
        },
        cacheHints: { 'tools/list': LIST_HINT, 'prompts/list': LIST_HINT, 'resources/list': LIST_HINT, 'resources/templates/list': LIST_HINT, 'server/discover': LIST_HINT },
      },
    );
    for (const tool of deps.tools) {
      const schema = schemas.get(tool.name)!;
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: schema.input,
          outputSchema: schema.output,
          annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          ...(view === null ? {} : { _meta: viewMeta(tool.name) }),
        },
        (_args, extra) => sdkToolCall(tool.name, extra.http?.authInfo),
      );
    }
    registerResources(server, ctx);
    if (view !== null) registerView(server, view, LIST_HINT);
    registerTemplates(server, { tools: deps.tools, templates, dataset, answer: (tool, args, extra) => templateAnswer(tool, args, extra.http?.authInfo), cacheHint: dataHint(ctx) });
    for (const { prompt, argsSchema } of prompts) {
      server.registerPrompt(prompt.name, { title: prompt.title, description: `${prompt.description} Uses ${prompt.tools.join(', ')}.`, argsSchema }, (args: Record<string, string | undefined>) => ({
        description: prompt.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args) } }],
      }));
    }
    return server;
  }

  /** The resources, with the cache hint each one's read carries in the 2026 era. */
  function registerResources(server: McpServer, ctx: McpRequestContext): void {
    const dataset = () => deps.runner.dataset();
    for (const resource of RESOURCES) {
      const { uri, name, title, description, mimeType } = resource;
      server.registerResource(name, uri, { title, description, mimeType, cacheHint: resource.fromData ? dataHint(ctx) : LIST_HINT }, () => {
        try {
          return { contents: [{ uri, mimeType, text: resource.read(dataset) }] };
        } catch (err) {
          if (err instanceof ApiError && err.code === 'data_unavailable') throw new ProtocolError(MCP_ERRORS.dataUnavailable, err.detail, { code: err.code });
          throw err;
        }
      });
    }
  }

  /** A resource built from the served data may be kept until the next refresh is due (0 when none is scheduled or nothing is served). */
  function dataHint(ctx: McpRequestContext): CacheHint {
    if (ctx.era === 'legacy') return {};
    let next: Date | null = null;
    try {
      next = deps.runner.dataset().nextRefreshAt;
    } catch {
      next = null;
    }
    const ttlMs = next === null ? 0 : Math.max(0, next.getTime() - deps.clock().getTime());
    return { ttlMs, cacheScope: 'public' };
  }

  return { factory, callTool };
}
