// The MCP server of the JSON-RPC door: the official SDK's McpServer over the one tool registry,
// with resources and prompts, connected to an in-process transport that the HTTP adapter
// (mcp.ts) feeds one message at a time.
//
// From the SDK: initialize and protocol-version negotiation, capabilities, ping, tools/list
// (generated from each tool's zod schemas and annotations), resources/*, prompts/*, unknown
// methods (-32601) and the request shapes. Ours: tools/call, which must behave as the contract
// says and as a REST call does. McpServer's own tools/call handler validates arguments with its
// own messages before anything else and turns every failure into an `isError` result; the
// contract wants an unknown tool to be -32602, a call to be counted before its arguments are
// judged, bad arguments to name the allowed values, quota and outage refusals to be JSON-RPC
// errors with HTTP statuses, and answers to come from the response cache. So the tools/call
// request handler is replaced by `callTool` below, which runs each tool through the callback
// registerTool was given.

import { McpServer, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, AuthResult } from '../access/access.js';
import type { Clock } from '../access/clock.js';
import { mcpToolResult } from '../tools/budget.js';
import { ApiError } from '../tools/errors.js';
import { parseArgs } from '../tools/params.js';
import type { Account, ToolDefinition } from '../tools/tool.js';
import { outageError } from './gate.js';
import type { ToolRunner } from './invoke.js';
import { MCP_ERRORS, RpcError, rpcErrorOf } from './mcp-errors.js';
import { registerPrompts } from './mcp-prompts.js';
import { registerResources } from './mcp-resources.js';

/** What one JSON-RPC message is handled with, passed to the SDK's handlers in `authInfo.extra`. */
export interface McpCall {
  auth: AuthResult;
  /** The account the gate admitted the message with (mcp.ts meters every message before dispatch). */
  account: Account | null;
  request: FastifyRequest;
  reply: FastifyReply;
  /** A message refused by the gate, or a tool call that met an outage: a lone message is then an HTTP 429 or 503. */
  refusal: ApiError | null;
  /** The serialised tools/call result (the response cache's `mcpResult`), sent as it is. */
  raw: Buffer | null;
}

export interface McpServerDeps {
  access: AccessControl;
  runner: ToolRunner;
  clock: Clock;
  version: string;
  tools: readonly ToolDefinition[];
  onError(err: Error): void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
export type RpcResponse = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * A Transport that carries one request at a time into the server and hands back its response.
 * Concurrent HTTP requests share the server, and their callers' ids may collide (every curl
 * call can be id 1), so each request gets an id of the transport's own; the adapter answers
 * with the caller's.
 */
export class InProcessTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private lastId = 0;
  private readonly waiting = new Map<number, (response: RpcResponse) => void>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Server notifications (list_changed, progress) have no stateless client to go to.
    if (!('id' in message) || 'method' in message) return;
    const done = this.waiting.get(message.id as number);
    if (done === undefined) return;
    this.waiting.delete(message.id as number);
    done(message);
  }

  /** `request` must satisfy the SDK's isJSONRPCRequest; otherwise the server drops it unanswered. */
  exchange(request: JSONRPCRequest, call: McpCall): Promise<RpcResponse> {
    const id = ++this.lastId;
    const authInfo: AuthInfo = { token: '', clientId: call.auth.ok ? call.auth.caller.prefix : '', scopes: [], extra: { call } };
    return new Promise<RpcResponse>((resolve) => {
      this.waiting.set(id, resolve);
      this.onmessage?.({ ...request, id }, { authInfo });
    });
  }
}

const callOf = (extra: Extra): McpCall => extra.authInfo?.extra?.call as McpCall;

const toolError = (err: ApiError): CallToolResult => ({ content: [{ type: 'text', text: `${err.code}: ${err.detail}` }], isError: true });

/** What the SDK serialises for a tools/call whose answer is `McpCall.raw` (the adapter sends that instead). */
const SENT_AS_IS: CallToolResult = { content: [] };

export function createMcpServer(deps: McpServerDeps): {
  server: McpServer;
  transport: InProcessTransport;
  callToolDirect(request: JSONRPCRequest, call: McpCall): Promise<CallToolResult>;
} {
  const server = new McpServer(
    { name: 'stock-data-service', title: 'Stock scoring and export data', version: deps.version },
    {
      instructions:
        'Read-only data on Korean (6-digit codes) and US (tickers) listed stocks and Korean exports. get_rankings and ' +
        'get_stock_score are formula results; snapshot, valuation band, percentile and price history are raw material without verdicts. ' +
        'Resources explain the formula, the metrics, the sectors and the data sources; prompts show the common jobs.',
    },
  );

  // A tool's run once admitted and its arguments validated: the same runner and response cache
  // as REST, and the result within the MCP size budget (tools/budget.ts), cached with the body.
  const run = (tool: ToolDefinition) => async (args: Record<string, unknown>, call: McpCall): Promise<CallToolResult> => {
    try {
      // A cached answer comes at once (ToolRunner.run): each await costs a share of a cached call.
      const outcome = deps.runner.run(tool, args, admitted(call));
      const { entry } = outcome instanceof Promise ? await outcome : outcome;
      call.raw = entry.mcpResult ??= Buffer.from(mcpToolResult(tool, entry.bytes.toString('utf8')), 'utf8');
      return SENT_AS_IS;
    } catch (err) {
      return toolFailure(err, call);
    }
  };

  const registered = new Map<string, { tool: ToolDefinition; run: ReturnType<typeof run> }>();
  for (const tool of deps.tools) {
    const runTool = run(tool);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      ((args: Record<string, unknown>, extra: Extra) => runTool(args, callOf(extra))) as unknown as ToolCallback<typeof tool.input>,
    );
    registered.set(tool.name, { tool, run: runTool });
  }
  registerResources(server, () => deps.runner.dataset());
  registerPrompts(server, deps.tools);
  // Stateless: no client is ever told that a list changed.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });

  /** The account of a tools/call the adapter admitted; only a message metered as that tool has one. */
  function admitted(call: McpCall): Account {
    if (call.account === null) throw new RpcError(ErrorCode.InternalError, `Internal error; quote request id ${call.request.id}`);
    return call.account;
  }

  function toolFailure(err: unknown, call: McpCall): CallToolResult {
    if (err instanceof RpcError) throw err;
    if (err instanceof ApiError) {
      if (err.code === 'data_unavailable') throw new RpcError(MCP_ERRORS.dataUnavailable, err.detail, { code: err.code });
      // Bad arguments and unknown codes are the tool's answer, so the model can correct itself.
      return toolError(err);
    }
    const outage = outageError(err);
    if (outage !== null) {
      call.request.log.warn({ errName: (err as Error).name }, 'dependency unreachable');
      call.refusal = outage;
      throw rpcErrorOf(outage);
    }
    call.request.log.error({ errName: (err as Error).name }, 'tool failed');
    throw new RpcError(ErrorCode.InternalError, `Internal error; quote request id ${call.request.id}`);
  }

  // tools/call: admitted and counted by the adapter first (whatever the arguments), then the tool's
  // MCP defaults merged under the caller's arguments and validated with the registry's messages, then run.
  async function callTool(params: CallToolRequest['params'], call: McpCall): Promise<CallToolResult> {
    const { name } = params;
    const entry = registered.get(name);
    if (entry === undefined) {
      throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 60)}; available: ${[...registered.keys()].join(', ')}`);
    }
    const { tool } = entry;
    const given: unknown = params.arguments ?? {};
    let args: Record<string, unknown>;
    try {
      args = parseArgs(tool.input, given) as Record<string, unknown>;
    } catch (err) {
      return toolFailure(err, call);
    }
    return entry.run(args, call);
  }
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(request.params, callOf(extra)));
  server.server.onerror = deps.onError;

  /**
   * tools/call without the Protocol's message plumbing, for the adapter's hot path: the same
   * handler the server has installed, after the same request validation (the SDK's
   * CallToolRequestSchema). The plumbing classifies each message with three zod parses, two of
   * which fail and build an error with a stack, and costs about a third of a cached call
   * (docs/architecture.md); a call that carries `_meta` or `task` still goes through it.
   */
  async function callToolDirect(request: JSONRPCRequest, call: McpCall): Promise<CallToolResult> {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw new RpcError(ErrorCode.InvalidParams, `Invalid tools/call request: ${parsed.error.message}`);
    return callTool(parsed.data.params, call);
  }

  const transport = new InProcessTransport();
  return { server, transport, callToolDirect };
}
