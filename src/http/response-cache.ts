// Serialised responses of cacheable tools, keyed by dataset version, tool and canonical
// arguments, bounded by bytes. A dataset swap changes the version, so stale entries are never
// served and simply age out.

import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface CachedBody {
  /**
   * The serialised answer as UTF-8 bytes. REST sends them as they are: a string body would be
   * measured (Content-Length) and encoded again on every request.
   */
  bytes: Buffer;
  etag: string;
  /** The MCP tools/call result wrapping this body (UTF-8), built once on first use. */
  mcpResult?: Buffer;
}

export class ResponseCache {
  private readonly lru: LRUCache<string, CachedBody>;

  constructor(maxBytes = 128 * 1024 * 1024) {
    this.lru = new LRUCache<string, CachedBody>({
      maxSize: maxBytes,
      // The body, and room for its MCP form (about as long), which the first MCP call adds.
      sizeCalculation: (v, k) => 2 * v.bytes.byteLength + k.length + 64,
    });
  }

  static key(version: number, tool: string, args: Readonly<Record<string, unknown>>): string {
    return `${version}|${tool}|${canonicalArgs(args)}`;
  }

  get(key: string): CachedBody | undefined {
    return this.lru.get(key);
  }

  /** Whether an entry is held (without counting as a use). */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  put(key: string, bytes: Buffer): CachedBody {
    const entry = ResponseCache.entry(bytes);
    this.lru.set(key, entry);
    return entry;
  }

  /** A body (UTF-8 JSON) with its strong ETag (a digest of the bytes), not stored. */
  static entry(bytes: Buffer): CachedBody {
    return { bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
  }

  clear(): void {
    this.lru.clear();
  }
}

/** A frozen argument object's text: it cannot change, and REST reuses one per URL (rest.ts ParsedArgs). */
const canonicalOfFrozen = new WeakMap<object, string>();

/** Arguments as text independent of their order: `name=JSON` pairs sorted by name. */
function canonicalArgs(args: Readonly<Record<string, unknown>>): string {
  const held = canonicalOfFrozen.get(args);
  if (held !== undefined) return held;
  const canonical = Object.keys(args)
    .sort()
    .map((k) => `${k}=${JSON.stringify(args[k])}`)
    .join('&');
  if (Object.isFrozen(args)) canonicalOfFrozen.set(args, canonical);
  return canonical;
}

/** True when an If-None-Match header matches the ETag (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}
