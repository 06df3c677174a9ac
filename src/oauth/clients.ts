// The authorization server's clients: registered ones (RFC 7591 dynamic registration, public
// clients only) and those whose client_id is the URL of a client ID metadata document (the MCP
// authorization spec's preferred way), fetched and kept for an hour.

import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import type { OAuthClientRecord, OAuthStore } from '../store/oauth-store.js';

/** A metadata document is fetched again after this long. */
const DOCUMENT_TTL_MS = 3_600_000;
const DOCUMENT_MAX_BYTES = 16_384;
const DOCUMENT_TIMEOUT_MS = 5_000;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Addresses a client ID metadata document may not be fetched from: the service's own network
 * (loopback, private, link-local, carrier-grade NAT, unspecified, unique-local). The URL is a
 * caller's choice; without this it would let anyone make the service request its neighbours.
 */
const INTERNAL = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) INTERNAL.addSubnet(net, bits, 'ipv6');

/** True when `hostname` is, or resolves to, an internal address (any of its addresses). */
export async function internalHost(hostname: string): Promise<boolean> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true });
  return addresses.some((a) => INTERNAL.check(a.address, a.family === 6 ? 'ipv6' : 'ipv4'));
}

/** Why a client or its redirect URI is refused; shown on the error page or as the registration error. */
export class ClientError extends Error {
  constructor(
    readonly error: 'invalid_client' | 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
    this.name = 'ClientError';
  }
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
  fetch?: typeof fetch;
}

export class Clients {
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
    await this.o.store.putClient({ clientId, kind: 'registered', name, redirectUris: parsed.data.redirect_uris, createdAt: now, fetchedAt: now });
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

  /** The client of a client_id, fetching its metadata document when the id is one's URL; null when unknown. */
  async resolve(clientId: string): Promise<OAuthClientRecord | null> {
    if (!this.isDocumentUrl(clientId)) return this.o.store.client(clientId);
    const stored = await this.o.store.client(clientId);
    if (stored !== null && this.o.now().getTime() - Date.parse(stored.fetchedAt) < DOCUMENT_TTL_MS) return stored;
    const fetched = await this.fetchDocument(clientId);
    const now = this.o.now().toISOString();
    const record: OAuthClientRecord = {
      clientId,
      kind: 'document',
      name: fetched.client_name ?? new URL(clientId).host,
      redirectUris: fetched.redirect_uris,
      createdAt: stored?.createdAt ?? now,
      fetchedAt: now,
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
  private async fetchDocument(url: string): Promise<z.infer<typeof documentSchema>> {
    let res: Response;
    try {
      // Loopback documents are the tests' (OAUTH_LOOPBACK_CLIENT_DOCUMENTS); otherwise no internal address.
      if (!(this.o.allowLoopbackDocuments && new URL(url).protocol === 'http:') && (await internalHost(new URL(url).hostname))) {
        throw new ClientError('invalid_client', 'the client metadata document is on an internal address');
      }
      res = await (this.o.fetch ?? fetch)(url, { redirect: 'error', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS) });
    } catch (err) {
      if (err instanceof ClientError) throw err;
      throw new ClientError('invalid_client', 'the client metadata document could not be fetched');
    }
    const text = res.ok ? await res.text() : '';
    if (!res.ok || text.length > DOCUMENT_MAX_BYTES) throw new ClientError('invalid_client', `the client metadata document could not be read (HTTP ${res.status})`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ClientError('invalid_client', 'the client metadata document is not JSON');
    }
    const parsed = documentSchema.safeParse(json);
    if (!parsed.success) throw new ClientError('invalid_client', `the client metadata document is not valid: ${String(parsed.error.issues[0]?.path[0] ?? '')}`);
    if (parsed.data.client_id !== url) throw new ClientError('invalid_client', 'the client metadata document names another client_id');
    return parsed.data;
  }
}
