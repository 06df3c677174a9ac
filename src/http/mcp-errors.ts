// The MCP door's own JSON-RPC errors. Server-defined codes are in the -32000..-32099 range.

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
 * An error a request handler throws to be answered as a JSON-RPC error with this code, message
 * and data. The SDK's Protocol answers any thrown error with its numeric `code`, `message` and
 * `data`; its own McpError would prefix the message with "MCP error <code>: ".
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
