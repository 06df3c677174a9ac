// Usage counters and burst windows in Redis (REDIS_URL), so several API instances share one
// quota per key. Each check-and-count is one Lua script: atomic across instances.

import { Redis } from 'ioredis';
import type { BurstDecision, UsageCounter } from './usage.js';

// KEYS[1] = the day's counter; ARGV = limit (-1 for none), time to live (ms).
// Returns the new count, or -1 when the day is full (nothing added).
const INCREMENT_BELOW = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if limit >= 0 and current >= limit then return -1 end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

// KEYS[1] = the second's window; ARGV = per-second limit. Returns 1 if admitted, 0 if not.
const TAKE_BURST = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
if n == 0 then redis.call('PEXPIRE', KEYS[1], 2000) end
return 1`;

const DAY_KEY_TTL_MS = 2 * 86_400_000;

export class RedisUsageCounter implements UsageCounter {
  readonly dependency = 'redis';
  readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'svc') {
    // Fail fast instead of queueing: a request must not hang because Redis is away.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: 5_000 });
    this.redis.on('error', () => undefined); // reported through readiness, not as a crash
  }

  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  private dayKey(keyId: number, day: string): string {
    return `${this.prefix}:usage:${keyId}:${day}`;
  }

  async increment(keyId: number, day: string, limit: number): Promise<number | null> {
    // A day's counter lives two days from its first call: past the end of its day (so `keys
    // list` can still read it) whatever the clocks of Redis and the instances say.
    const n = (await this.redis.eval(INCREMENT_BELOW, 1, this.dayKey(keyId, day), Number.isFinite(limit) ? limit : -1, DAY_KEY_TTL_MS)) as number;
    return n < 0 ? null : n;
  }

  async get(keyId: number, day: string): Promise<number> {
    return Number((await this.redis.get(this.dayKey(keyId, day))) ?? 0);
  }

  async takeBurst(keyId: number, perSecond: number, nowMs: number): Promise<BurstDecision> {
    const key = `${this.prefix}:burst:${keyId}:${Math.floor(nowMs / 1000)}`;
    const ok = (await this.redis.eval(TAKE_BURST, 1, key, perSecond)) as number;
    return { allowed: ok === 1, retryAfterSeconds: ok === 1 ? 0 : 1 };
  }

  async ping(): Promise<string | null> {
    try {
      return (await this.redis.ping()) === 'PONG' ? null : 'redis did not answer PONG';
    } catch {
      return 'redis unreachable';
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
