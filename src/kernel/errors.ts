// One error family for both doors, shared by every floor (src/kernel). Tools and the read model
// throw ApiError; REST maps it to problem+json (RFC 9457), MCP to an `isError` tool result or a
// JSON-RPC error. Messages are written for the caller and never carry a stack, SQL or a key.

export const ERROR_STATUS = {
  invalid_parameter: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  quota_exceeded: 429,
  rate_limited: 429,
  internal_error: 500,
  data_unavailable: 503,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = {
  invalid_parameter: 'Invalid parameter',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  quota_exceeded: 'Daily quota exceeded',
  rate_limited: 'Rate limited',
  internal_error: 'Internal error',
  data_unavailable: 'Data unavailable',
  service_unavailable: 'Service unavailable',
};

/** Seconds a caller is told to wait when a dependency is down (readiness is checked as often). */
export const OUTAGE_RETRY_AFTER_S = 5;

/**
 * A dependency the call needs (the database, Redis) does not answer: 503 with Retry-After.
 * Not `data_unavailable`, which means the data was never loaded; the data is there, the
 * service cannot reach it for now, and recovers by itself when the dependency is back.
 */
export function dependencyUnavailable(dependency: string): ApiError {
  return new ApiError('service_unavailable', `the ${dependency} is not reachable right now; try again in ${OUTAGE_RETRY_AFTER_S} s`, {
    retryAfter: OUTAGE_RETRY_AFTER_S,
  });
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { parameter?: string; retryAfter?: number; delistedOn?: string } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}
