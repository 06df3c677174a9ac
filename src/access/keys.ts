// API keys: high-entropy random strings with a readable prefix, stored only as a hash.
// The prefix (`sk_live_` + 8 characters) identifies a key in lists and logs; it is 48 bits of
// the key's own randomness, too little to use but enough to tell keys apart.
//
// The stored hash is SHA-256 of the key, or, with a server secret configured (KEY_PEPPER),
// HMAC-SHA256 keyed by that secret over the key's SHA-256: a copy of the database alone (a
// backup, a dump) then does not let anyone test guesses against it. Because the peppered hash is
// computed from the plain one, a store's existing hashes are peppered in place, without the keys
// (`applyKeyPepper`); the store's meta `key_hash_scheme` says which form its hashes are in.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessStore } from '../store/access-store.js';

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

/** The secret of this process's stored hashes, set by `applyKeyPepper`; null: plain SHA-256. */
let pepper: Buffer | null = null;

/** The stored form of a key: see the head of this file. */
export function hashKey(key: string): string {
  const plain = createHash('sha256').update(key, 'utf8').digest('hex');
  return pepper === null ? plain : pepperHash(plain, pepper);
}

/** The peppered form of a plain SHA-256 hash (hex): HMAC-SHA256(secret, the hash's 32 bytes). */
export function pepperHash(plainHash: string, secret: string | Buffer): string {
  return createHmac('sha256', secret).update(Buffer.from(plainHash, 'hex')).digest('hex');
}

/** Stored hashes are plain SHA-256 (no KEY_PEPPER, and a store that has never had one). */
export const PLAIN_SCHEME = 'sha256';

/**
 * The scheme name of hashes peppered with `secret`: it carries a fingerprint of the secret
 * (an HMAC of a fixed text; it does not reveal the secret), so a start with another secret is
 * told so instead of refusing every key.
 */
export function keyHashScheme(secret: string | undefined): string {
  if (secret === undefined || secret === '') return PLAIN_SCHEME;
  return `hmac-sha256:${createHmac('sha256', secret).update('key_hash_scheme fingerprint').digest('hex').slice(0, 16)}`;
}

/**
 * Makes `hashKey` hash as the store's keys are stored, moving them to the configured scheme
 * first when needed. Called once when a store is opened (src/app.ts `openStore`), before any key
 * is looked up or created:
 * - the store's scheme is the configured one: nothing to do;
 * - plain hashes and a secret configured: every stored hash is peppered in one transaction
 *   (another process doing the same at the same moment does it once);
 * - peppered hashes and no secret, or another secret: refused with a message that says so
 *   (every key would be refused; a secret cannot be removed or changed in place: keys must be
 *   created anew, docs/security.md).
 */
export async function applyKeyPepper(store: Pick<AccessStore, 'keyHashScheme' | 'rehashKeys'>, secret: string | undefined): Promise<'unchanged' | 'peppered'> {
  const wanted = keyHashScheme(secret);
  let stored = (await store.keyHashScheme()) ?? PLAIN_SCHEME;
  let outcome: 'unchanged' | 'peppered' = 'unchanged';
  if (stored !== wanted && stored === PLAIN_SCHEME && secret !== undefined && secret !== '') {
    if (await store.rehashKeys(null, wanted, (hash) => pepperHash(hash, secret))) outcome = 'peppered';
    stored = (await store.keyHashScheme()) ?? PLAIN_SCHEME;
  }
  if (stored !== wanted) {
    throw new Error(
      wanted === PLAIN_SCHEME
        ? 'the stored API keys are peppered (KEY_PEPPER); start with the same KEY_PEPPER'
        : stored === PLAIN_SCHEME
          ? 'the stored API keys could not be peppered'
          : `KEY_PEPPER is not the secret the stored API keys were peppered with (stored ${stored}, configured ${wanted}); start with that secret`,
    );
  }
  pepper = secret === undefined || secret === '' ? null : Buffer.from(secret, 'utf8');
  return outcome;
}

/**
 * The plain SHA-256 (hex) of a bearer credential that is not an API key (an OAuth access token):
 * what the admission path remembers of such a token (never the token itself).
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
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
