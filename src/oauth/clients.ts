// The authorization server's clients: registered ones (RFC 7591 dynamic registration, public
// clients only) and those whose client_id is the URL of a client ID metadata document (the MCP
// authorization spec's preferred way), fetched under caps and kept for the document's own max-age, bounded.

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AddressLimit } from '../access/address-limit.js';
import type { OAuthClientRecord, OAuthStore } from '../store/oauth-store.js';
import { FetchRefused, fetchPinned, publicUnicast } from './outbound.js';

/**
 * Fetching a client ID metadata document, a request to a URL a caller chose: at most `maxBytes`
 * read (the read stops there), `deadlineMs` for the whole exchange, and kept for the document's
 * own `Cache-Control: max-age` bounded to [minCacheSeconds, maxCacheSeconds]
 * (`defaultCacheSeconds` without one).
 */
export const DOCUMENT_LIMITS = { maxBytes: 16_384, deadlineMs: 5_000, minCacheSeconds: 60, maxCacheSeconds: 86_400, defaultCacheSeconds: 3_600 } as const;

/**
 * Document fetches an instance makes in an hour: for one client address, and for all together.
 * Each fetched document is an outbound request and a stored client row, so they are bounded as
 * registrations are (a cached or shared fetch is not counted).
 */
export const DOCUMENT_FETCH_LIMITS = { perAddressPerHour: 20, perInstancePerHour: 1_000 } as const;

/**
 * Redirect URI hosts that name the person's own machine: `http` is accepted on them (native apps,
 * RFC 8252 section 7.3), and their port is not compared (the app listens on whatever port it got).
 * `localhost` is among them: browsers resolve it to loopback themselves, and native MCP clients
 * register `http://localhost:<port>/callback`.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const loopbackAddress = (address: string): boolean => /^127\./.test(address) || address === '::1';

/** Why a client or its redirect URI is refused; shown on the error page or as the registration error. */
export class ClientError extends Error {
  constructor(
    readonly error: 'invalid_client' | 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
    /** Stable, shown on the error page: `unknown_client`, `document_too_large`, ... (docs/oauth.md). */
    readonly reason = error as string,
    /** The page's status: 400, or 429 with `retryAfter` when the fetch budget is used up. */
    readonly status = 400,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

/**
 * The redirect URI of a request, when the client registered it: exactly, or for a loopback
 * `http` redirect URI with any port (RFC 8252 section 7.3; the scheme, host, path and query
 * still exactly). Null when none matches.
 */
export function matchRedirectUri(registered: readonly string[], requested: string): string | null {
  if (registered.includes(requested)) return requested;
  if (!URL.canParse(requested)) return null;
  const want = new URL(requested);
  if (want.protocol !== 'http:' || !LOOPBACK_HOSTS.has(want.hostname) || want.username !== '' || want.password !== '' || want.hash !== '') return null;
  const samePlace = (r: string) => {
    if (!URL.canParse(r)) return false;
    const u = new URL(r);
    return u.protocol === 'http:' && u.hostname === want.hostname && u.username === '' && u.password === '' && u.pathname === want.pathname && u.search === want.search;
  };
  return registered.some(samePlace) ? requested : null;
}

/**
 * A redirect URI a client may register: https; http on a loopback host (native apps, RFC 8252);
 * or a private-use scheme (`com.example.app:/cb`). Never a fragment, never a script or data URL.
 */
export function acceptableRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash !== '' || uri.length > 2000) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname);
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol);
}

const redirectUris = z.array(z.string().refine(acceptableRedirectUri, 'redirect URIs must be https, http on loopback, or a private-use scheme')).min(1).max(10);

/** The RFC 7591 registration request fields this server reads; others are ignored. */
const registrationSchema = z.object({
  redirect_uris: redirectUris,
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.literal('none').optional(),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
  response_types: z.array(z.literal('code')).optional(),
});

const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().max(200).optional(),
  redirect_uris: redirectUris,
});

export interface ClientsOptions {
  store: OAuthStore;
  now: () => Date;
  /** Tests only: accept http metadata-document URLs on loopback (the document server of a test). */
  allowLoopbackDocuments: boolean;
}

/** How long a fetched document is kept: its max-age, bounded (DOCUMENT_LIMITS). */
export function documentLifetimeSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase().split(',').map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return DOCUMENT_LIMITS.minCacheSeconds;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  const seconds = maxAge === undefined ? DOCUMENT_LIMITS.defaultCacheSeconds : Number(maxAge);
  return Math.min(DOCUMENT_LIMITS.maxCacheSeconds, Math.max(DOCUMENT_LIMITS.minCacheSeconds, seconds));
}

export class Clients {
  /** Document fetches under way, by URL: a second request for one waits for the first's answer. */
  private readonly inFlight = new Map<string, Promise<OAuthClientRecord>>();
  private readonly fetchesByAddress = new AddressLimit(DOCUMENT_FETCH_LIMITS.perAddressPerHour, 3_600_000);
  private readonly allFetches = new AddressLimit(DOCUMENT_FETCH_LIMITS.perInstancePerHour, 3_600_000);

  constructor(private readonly o: ClientsOptions) {}

  /** RFC 7591: stores a public client and returns the registration response. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const parsed = registrationSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? 'body');
      const error = field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
      throw new ClientError(error, `${field}: ${issue?.message ?? 'invalid'}`);
    }
    const now = this.o.now().toISOString();
    const clientId = `c_${randomBytes(16).toString('base64url')}`;
    const name = parsed.data.client_name ?? 'an unnamed client';
    await this.o.store.putClient({ clientId, kind: 'registered', name, redirectUris: parsed.data.redirect_uris, createdAt: now, fetchedAt: now, expiresAt: null });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.parse(now) / 1000),
      client_name: name,
      redirect_uris: parsed.data.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  /** The stored client of a client_id, as it is (no fetch): what the token endpoint reads. */
  stored(clientId: string): Promise<OAuthClientRecord | null> {
    return this.o.store.client(clientId);
  }

  /**
   * The client of a client_id, fetching its metadata document when the id is one's URL and no
   * unexpired copy is stored; null when unknown. `address` is the client address the fetch is
   * counted against (DOCUMENT_FETCH_LIMITS).
   */
  async resolve(clientId: string, address: string): Promise<OAuthClientRecord | null> {
    if (!this.isDocumentUrl(clientId)) return this.o.store.client(clientId);
    const stored = await this.o.store.client(clientId);
    const nowMs = this.o.now().getTime();
    if (stored !== null && stored.kind === 'document' && stored.expiresAt !== null && Date.parse(stored.expiresAt) > nowMs) return stored;
    const running = this.inFlight.get(clientId);
    if (running !== undefined) return running;
    const wait = this.fetchesByAddress.blocked(address, nowMs) ?? this.allFetches.blocked('', nowMs);
    if (wait !== null) throw new ClientError('invalid_client', `too many client metadata documents fetched for this address; try again in ${wait} s`, 'document_fetch_budget', 429, wait);
    this.fetchesByAddress.count(address, nowMs);
    this.allFetches.count('', nowMs);
    const fetching = this.fetchAndStore(clientId, stored).finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    return fetching;
  }

  private async fetchAndStore(clientId: string, stored: OAuthClientRecord | null): Promise<OAuthClientRecord> {
    const { document, lifetimeSeconds } = await this.fetchDocument(clientId);
    const fetchedAt = this.o.now();
    const record: OAuthClientRecord = {
      clientId,
      kind: 'document',
      name: document.client_name ?? new URL(clientId).host,
      redirectUris: document.redirect_uris,
      createdAt: stored?.createdAt ?? fetchedAt.toISOString(),
      fetchedAt: fetchedAt.toISOString(),
      expiresAt: new Date(fetchedAt.getTime() + lifetimeSeconds * 1000).toISOString(),
    };
    await this.o.store.putClient(record);
    return record;
  }

  private isDocumentUrl(clientId: string): boolean {
    if (!URL.canParse(clientId)) return false;
    const url = new URL(clientId);
    if (url.pathname === '/' || url.hash !== '') return false;
    if (url.protocol === 'https:') return true;
    return this.o.allowLoopbackDocuments && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  }

  /** Fetches and checks a client ID metadata document: JSON, small, its client_id its own URL. */
  private async fetchDocument(url: string): Promise<{ document: z.infer<typeof documentSchema>; lifetimeSeconds: number }> {
    const target = new URL(url);
    // Public unicast addresses only; loopback ones for the tests' http documents (OAUTH_LOOPBACK_CLIENT_DOCUMENTS).
    const permit = target.protocol === 'http:' ? loopbackAddress : publicUnicast;
    let res;
    try {
      res = await fetchPinned(target, DOCUMENT_LIMITS, { accept: 'application/json', 'user-agent': 'stock-data-oauth' }, { permit });
    } catch (err) {
      if (err instanceof FetchRefused) {
        const message = err.reason === 'internal_address' ? 'the client metadata document is on an internal address' : `the client metadata document could not be fetched: ${err.message}`;
        throw new ClientError('invalid_client', message, `document_${err.reason}`);
      }
      throw new ClientError('invalid_client', 'the client metadata document could not be fetched', 'document_unreachable');
    }
    if (res.status !== 200) throw new ClientError('invalid_client', `the client metadata document could not be read (HTTP ${res.status})`, 'document_http_status');
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new ClientError('invalid_client', 'the client metadata document is not JSON', 'document_not_json');
    }
    const parsed = documentSchema.safeParse(json);
    if (!parsed.success) throw new ClientError('invalid_client', `the client metadata document is not valid: ${String(parsed.error.issues[0]?.path[0] ?? '')}`, 'document_invalid');
    if (parsed.data.client_id !== url) throw new ClientError('invalid_client', 'the client metadata document names another client_id', 'document_client_id_mismatch');
    const cacheControl = res.headers['cache-control'];
    return { document: parsed.data, lifetimeSeconds: documentLifetimeSeconds(Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl) };
  }
}
