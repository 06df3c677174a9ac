// The MCP door's own JSON-RPC errors. Server-defined codes are in the -32000..-32099 range.

import type { ApiError } from '../kernel/errors.js';

/** Server-defined JSON-RPC error codes. */
export const MCP_ERRORS = {
  unauthorized: -32001,
  forbidden: -32003,
  quota: -32029,
  dataUnavailable: -32004,
  /** The database or Redis is away: HTTP 503 with Retry-After (docs/deploy.md). */
  serviceUnavailable: -32053,
} as const;

/**
 * A JSON-RPC error the door answers with this code, message and data: a tool call's failure
 * (mcp-server.ts `ToolOutcome`) or a refusal by the gate (`rpcErrorOf`).
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** The message of `-32602` for a tools/call of a tool that is not one of `available` (the name cut to 60 characters). */
export function unknownToolMessage(name: unknown, available: readonly string[]): string {
  const shown = typeof name === 'string' ? name.slice(0, 60) : name === undefined ? 'none given' : typeof name;
  return `Unknown tool: ${shown}; available: ${available.join(', ')}`;
}

/** The JSON-RPC code of a refusal or failure the door answers as an error (not an `isError` result). */
export function rpcCodeOf(error: ApiError): number {
  switch (error.code) {
    case 'unauthorized':
      return MCP_ERRORS.unauthorized;
    case 'forbidden':
      return MCP_ERRORS.forbidden;
    case 'quota_exceeded':
    case 'rate_limited':
      return MCP_ERRORS.quota;
    case 'service_unavailable':
      return MCP_ERRORS.serviceUnavailable;
    case 'data_unavailable':
      return MCP_ERRORS.dataUnavailable;
    default:
      return -32603;
  }
}

/** A refusal or failure as the JSON-RPC error the door answers: `<code>: <detail>`, with the code and Retry-After as data. */
export function rpcErrorOf(error: ApiError): RpcError {
  const retryAfter = error.extra.retryAfter;
  return new RpcError(rpcCodeOf(error), `${error.code}: ${error.detail}`, { code: error.code, ...(retryAfter === undefined ? {} : { retryAfter }) });
}
