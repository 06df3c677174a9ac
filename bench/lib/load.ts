// One load run with autocannon from this process (the bench is the second process on
// loopback). Latencies are recorded per response in microseconds from autocannon's own
// response time (its histogram keeps whole milliseconds only), so p50 and p99 are exact.

import autocannon from 'autocannon';
import type { IncomingHttpHeaders } from 'node:http';
import { percentile, round } from './util.js';

export interface LoadTarget {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** When set, every request takes its path from here (a rotation over many stocks). */
  nextPath?: () => string;
  /** Count the service's `X-Cache: hit|miss` answers (costs the load generator a little). */
  countCache?: boolean;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Mean response bytes per second. */
  bytesPerSecond: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Responses with `X-Cache: hit` and `miss` (when counted; null otherwise). */
  cacheHits: number | null;
  cacheMisses: number | null;
}

export function runLoad(target: LoadTarget, seconds: number, connections: number): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const cache = { hit: 0, miss: 0 };
  const onResponse = (_status: number, _body: string, _context: object, headers: IncomingHttpHeaders | undefined) => {
    const value = headers?.['x-cache'] ?? (headers as Record<string, string> | undefined)?.['X-Cache'];
    if (value === 'hit') cache.hit++;
    else if (value === 'miss') cache.miss++;
  };
  const options: autocannon.Options = {
    url: target.url,
    method: target.method,
    headers: target.headers,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 30,
    ...(target.body !== undefined ? { body: target.body } : {}),
    ...(target.nextPath || target.countCache
      ? {
          requests: [
            {
              ...(target.nextPath ? { setupRequest: (request: autocannon.Request) => ({ ...request, path: (target.nextPath as () => string)() }) } : {}),
              ...(target.countCache ? { onResponse } : {}),
            },
          ],
        }
      : {}),
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err: unknown, result: autocannon.Result) => {
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const sorted = latencies.subarray(0, count).sort();
      resolve({
        requestsPerSecond: round(result.requests.total / result.duration, 0),
        p50Ms: round(percentile(sorted, 50), 2),
        p99Ms: round(percentile(sorted, 99), 2),
        maxMs: round(percentile(sorted, 100), 2),
        bytesPerSecond: round(result.throughput.total / result.duration, 0),
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        seconds: result.duration,
        cacheHits: target.countCache ? cache.hit : null,
        cacheMisses: target.countCache ? cache.miss : null,
      });
    });
    instance.on('response', (_client: autocannon.Client, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode < 200 || statusCode >= 300) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    });
  });
}
