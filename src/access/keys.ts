// API keys: high-entropy random strings with a readable prefix, stored only as SHA-256.
// The prefix (`sk_live_` + 8 characters) identifies a key in lists and logs; it is 48 bits of
// the key's own randomness, too little to use but enough to tell keys apart.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'sk_live_';
const KEY_BODY_CHARS = 43; // 32 random bytes in base64url
export const KEY_PATTERN = /^sk_live_[A-Za-z0-9_-]{43}$/;
export const PREFIX_LENGTH = KEY_PREFIX.length + 8;

export interface NewKey {
  key: string;
  prefix: string;
  hash: string;
}

export function generateKey(): NewKey {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function looksLikeKey(candidate: string): boolean {
  return candidate.length === KEY_PREFIX.length + KEY_BODY_CHARS && KEY_PATTERN.test(candidate);
}

/** Reads `Authorization: Bearer <key>`; returns null for a missing or malformed header. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match?.[1] ?? null;
}
