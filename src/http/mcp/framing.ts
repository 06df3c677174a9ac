// JSON-RPC 2.0 framing of the MCP door: the shapes of a message as parsed from the body, and the
// answers written as JSON text (or bytes) without a serialiser in the path. A cached tool result
// is spliced into its response as the bytes the response cache holds (cached-call.ts).

export type Id = string | number | null;

export interface Incoming {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  jsonrpc?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * A serialised JSON-RPC response, or null for a message that gets none (a notification). A
 * cached tool result comes as UTF-8 bytes and is sent as bytes: a string body would be measured
 * and encoded again on every request.
 */
export type Answer = string | Buffer | null;

/** The -32000 code of a JSON-RPC call the endpoint does not take (GET, DELETE: no session, no stream). */
export const CONNECTION_CLOSED = -32000;

const encodeId = (id: Id): string => JSON.stringify(id);
export const errorAnswer = (id: Id, code: number, message: string, data?: unknown): string =>
  `{"jsonrpc":"2.0","id":${encodeId(id)},"error":${JSON.stringify({ code, message, ...(data === undefined ? {} : { data }) })}}`;
const resultHead = (id: Id): string => `{"jsonrpc":"2.0","id":${encodeId(id)},"result":`;
export const resultAnswer = (id: Id, result: string): string => `${resultHead(id)}${result}}`;
const CLOSE = Buffer.from('}');
export const rawResultAnswer = (id: Id, result: Buffer): Buffer => Buffer.concat([Buffer.from(resultHead(id)), result, CLOSE]);
const COMMA = Buffer.from(',');
const OPEN_BATCH = Buffer.from('[');
const CLOSE_BATCH = Buffer.from(']');

/** The HTTP body of the answers: one answer as it is, a batch as a JSON array. */
export function bodyOf(replies: readonly (string | Buffer)[], batch: boolean): string | Buffer {
  if (!batch) return replies[0] as string | Buffer;
  if (replies.every((r) => typeof r === 'string')) return `[${replies.join(',')}]`;
  const parts: Buffer[] = [];
  for (const r of replies) parts.push(parts.length === 0 ? OPEN_BATCH : COMMA, typeof r === 'string' ? Buffer.from(r, 'utf8') : r);
  parts.push(CLOSE_BATCH);
  return Buffer.concat(parts);
}

export function validId(id: unknown): id is string | number {
  return (typeof id === 'string' && id.length <= 200) || (typeof id === 'number' && Number.isFinite(id));
}

export function idOf(payload: unknown): Id {
  const id = payload !== null && typeof payload === 'object' ? (payload as Incoming).id : undefined;
  return validId(id) ? id : null;
}

/** A tools/call's arguments as parsed from the body (see McpCall.arguments). */
export function argumentsOf(message: unknown): unknown {
  if (message === null || typeof message !== 'object') return undefined;
  const params = (message as Incoming).params;
  return params !== null && typeof params === 'object' ? (params as { arguments?: unknown }).arguments : undefined;
}

export function isHealthCall(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false;
  const msg = m as Incoming;
  return msg.method === 'tools/call' && typeof msg.params === 'object' && msg.params !== null && (msg.params as { name?: unknown }).name === 'health';
}
