// The 2025-era tools/call, answered by the door rather than by McpServer: checked with the SDK's
// own request guard (`isSpecType.CallToolRequest`), run by the one `callTool` of both eras
// (mcp-server.ts), and answered from the response cache's serialised result, byte for byte, so a
// cached call is neither parsed nor serialised again and builds no server (docs/architecture.md
// has the figures).

import { isSpecType, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ApiError } from '../../kernel/errors.js';
import { TOOLS } from '../../tools/registry.js';
import { unknownToolMessage } from '../mcp-errors.js';
import type { McpCall, McpService } from '../mcp-server.js';
import { errorAnswer, rawResultAnswer, resultAnswer, type Answer, type Id } from './framing.js';

/** Names of the registry's tools: a tools/call of one of them is metered as that tool. */
export const TOOL_LIST = TOOLS.map((t) => t.name);
export const TOOL_NAMES = new Set(TOOL_LIST);

/** One 2025-era message's answer, and the refusal a lone message is answered with as HTTP 503 (a dependency away during the call). */
export interface LegacyAnswer {
  answer: Answer;
  refusal: ApiError | null;
}

/** A 2025-era tools/call (`message`, whose `params` and `id` the caller has read). */
export async function cachedCall(service: McpService, id: Id, params: Record<string, unknown> | undefined, message: unknown, call: McpCall): Promise<LegacyAnswer> {
  const answer = (a: Answer) => ({ answer: a, refusal: null });
  if (typeof params?.name !== 'string' || !TOOL_NAMES.has(params.name)) return answer(errorAnswer(id, ProtocolErrorCode.InvalidParams, unknownToolMessage(params?.name, TOOL_LIST)));
  if (!isSpecType.CallToolRequest(message)) return answer(errorAnswer(id, ProtocolErrorCode.InvalidParams, 'Invalid params: not a tools/call request (arguments must be an object)'));
  const outcome = await service.callTool(params.name, call);
  if (outcome.kind === 'result') return answer(rawResultAnswer(id, outcome.bytes));
  if (outcome.kind === 'tool-error') return answer(resultAnswer(id, JSON.stringify(outcome.result)));
  return { answer: errorAnswer(id, outcome.error.code, outcome.error.message, outcome.error.data), refusal: outcome.refusal };
}
