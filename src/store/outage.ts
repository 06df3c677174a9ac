// Telling a dependency that is away (connection refused, reset, timed out, shut down, busy)
// from every other failure, so a call that needs it is answered 503 with Retry-After rather
// than 500: the service recovers by itself when the dependency is back (the pg pool and the
// Redis client reconnect), and /readyz names what is missing meanwhile.

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (admin shutdown, crash
// shutdown, cannot connect now), 53300 (too many connections).
const PG_CODES = /^(08...|57P0[123]|53300)$/;
// The pg pool's and client's own messages (they carry no code), ioredis's when it is offline.
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|enableOfflineQueue|Reached the max retries per request/i;

export function isOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_CODES.test(code) || code === 'SQLITE_BUSY')) return true;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (MESSAGES.test(err.message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isOutage(cause);
}
