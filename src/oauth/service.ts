// The OAuth 2.1 authorization server of the MCP endpoint, on @node-oauth/oauth2-server (the
// library runs the grants, PKCE S256 and refresh rotation; ./model.ts stores), and the one call
// the admission path makes of it: `authenticate`, which turns an OAuth access token into the API
// key it acts as. Routes: ./routes.ts. Decisions: docs/oauth.md.

import OAuth2Server from '@node-oauth/oauth2-server';
import type { AccessControl, AuthResult } from '../access/access.js';
import { AddressLimit } from '../access/address-limit.js';
import { bearerToken, looksLikeKey } from '../access/keys.js';
import type { OAuthPendingRecord, OAuthStore } from '../store/oauth-store.js';
import { Clients } from './clients.js';
import { MCP_SCOPE, mcpResource, resourceMetadataUrl } from './metadata.js';
import { ACCESS_TOKEN_PREFIX, oauthModel, secretHash } from './model.js';

/** What an OAuth access token authenticates as: a key's AuthResult, or `forbidden` (another resource or scope: 403). */
export type TokenAuth = AuthResult | { ok: false; why: 'forbidden'; prefix?: string };

/**
 * Dynamic client registrations (open, as the MCP authorization spec expects) an instance takes
 * in an hour: from one client address, and from all together. Each registration is a stored
 * row, so without a bound a script could grow the database at will.
 */
export const REGISTRATION_LIMITS = { perAddressPerHour: 20, perInstancePerHour: 1_000 } as const;

/** The sign-in page's grant waits this long between the key (step one) and Allow (step two). */
export const PENDING_GRANT_SECONDS = 600;

/** A registered client with no code or token left is deleted this long after its registration. */
export const REGISTERED_CLIENT_DAYS = 30;

export interface OAuthOptions {
  /** The public origin (PUBLIC_URL): the issuer and the resource's origin. */
  origin: string;
  store: OAuthStore;
  access: AccessControl;
  /** Access tokens live this long (seconds); default one hour. */
  accessTokenSeconds?: number;
  /** Refresh tokens live this long (seconds); default 30 days. Each use rotates it. */
  refreshTokenSeconds?: number;
  /** Authorization codes live this long (seconds); default 2 minutes. */
  codeSeconds?: number;
  /** Tests only: client ID metadata documents may be http on loopback. */
  allowLoopbackDocuments?: boolean;
  now?: () => Date;
}

export class OAuthService {
  readonly origin: string;
  /** The resource indicator (RFC 8707) a token must be issued for. */
  readonly resource: string;
  readonly clients: Clients;
  readonly server: OAuth2Server;
  readonly access: AccessControl;
  readonly codeSeconds: number;
  private readonly store: OAuthStore;
  private readonly now: () => Date;
  private lastSweep = 0;
  private readonly registrations = new AddressLimit(REGISTRATION_LIMITS.perAddressPerHour, 3_600_000);
  private readonly allRegistrations = new AddressLimit(REGISTRATION_LIMITS.perInstancePerHour, 3_600_000);

  constructor(o: OAuthOptions) {
    this.origin = o.origin;
    this.resource = mcpResource(o.origin);
    this.store = o.store;
    this.access = o.access;
    this.now = o.now ?? (() => new Date());
    this.codeSeconds = o.codeSeconds ?? 120;
    this.clients = new Clients({ store: o.store, now: this.now, allowLoopbackDocuments: o.allowLoopbackDocuments ?? false });
    this.server = new OAuth2Server({
      model: oauthModel(o.store, this.clients),
      accessTokenLifetime: o.accessTokenSeconds ?? 3_600,
      refreshTokenLifetime: o.refreshTokenSeconds ?? 30 * 86_400,
      authorizationCodeLifetime: this.codeSeconds,
      allowEmptyState: true,
      alwaysIssueNewRefreshToken: true,
      // Public clients (no secret): PKCE S256 is what binds the code to the client.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      allowBearerTokensInQueryString: false,
    });
  }

  /**
   * The `WWW-Authenticate` value of a 401 at the MCP endpoint: where the protected resource
   * metadata is (RFC 9728 section 5.1), and `invalid_token` when a credential was sent.
   */
  challenge(credentialSent: boolean): string {
    return `Bearer resource_metadata="${resourceMetadataUrl(this.origin)}", scope="${MCP_SCOPE}"${credentialSent ? ', error="invalid_token"' : ''}`;
  }

  /** The 403's: a token for another resource or without the scope. */
  forbiddenChallenge(): string {
    return `Bearer resource_metadata="${resourceMetadataUrl(this.origin)}", scope="${MCP_SCOPE}", error="insufficient_scope"`;
  }

  /**
   * The key an `Authorization: Bearer <token>` header acts as, when it carries an access token
   * of this server (`mcp_at_...`); null, at once, for anything else (an API key, a malformed or
   * missing header), which the key path decides.
   * The lookup joins the key's row every time: a token of a revoked key is refused on the next
   * request on every instance.
   */
  authenticate(authorization: string | undefined): TokenAuth | null | Promise<TokenAuth> {
    const token = bearerToken(authorization);
    if (token === null || !token.startsWith(ACCESS_TOKEN_PREFIX) || looksLikeKey(token)) return null;
    return this.lookUp(token);
  }

  private async lookUp(token: string): Promise<TokenAuth> {
    const row = await this.store.token(secretHash(token), 'access');
    if (row === null || Date.parse(row.expiresAt) <= this.now().getTime()) return { ok: false, why: 'unknown' };
    if (row.keyRevokedAt !== null) return { ok: false, why: 'revoked', prefix: row.keyPrefix };
    if (row.resource !== this.resource || !row.scope.split(' ').includes(MCP_SCOPE)) return { ok: false, why: 'forbidden', prefix: row.keyPrefix };
    return { ok: true, caller: { keyId: row.keyId, prefix: row.keyPrefix, plan: row.keyPlan } };
  }

  /**
   * Counts a registration attempt from client `address`: null when it may go on, otherwise the
   * seconds until it may (its address's or the instance's hour is used up; a refused attempt
   * is not counted).
   */
  registrationWait(address: string): number | null {
    const now = this.now().getTime();
    const wait = this.registrations.blocked(address, now) ?? this.allRegistrations.blocked('', now);
    if (wait !== null) return wait;
    this.registrations.count(address, now);
    this.allRegistrations.count('', now);
    return null;
  }

  /**
   * Holds the key checked at the page's step one for its step two, keyed by the SHA-256 of the
   * page's CSRF token (bound to the browser by its cookie), in the OAuth store: any instance
   * behind the same store can answer step two.
   */
  async holdGrant(csrf: string, keyId: number, clientId: string, request: Record<string, string>): Promise<void> {
    const expiresAt = new Date(this.now().getTime() + PENDING_GRANT_SECONDS * 1000).toISOString();
    await this.store.putPending({ sessionHash: secretHash(csrf), keyId, clientId, request, expiresAt });
  }

  /** The grant held for this CSRF token, taken (a second Allow finds none); null when none or expired. */
  takeGrant(csrf: string): Promise<(OAuthPendingRecord & { keyRevokedAt: string | null }) | null> {
    return this.store.takePending(secretHash(csrf), this.now().toISOString());
  }

  /**
   * Deletes expired codes, tokens and pending grants, and unused clients (a document whose copy
   * expired, a registration older than REGISTERED_CLIENT_DAYS), at most once an hour (called
   * when tokens are issued and when the sign-in page is asked for).
   */
  sweep(): void {
    const now = this.now().getTime();
    if (now - this.lastSweep < 3_600_000) return;
    this.lastSweep = now;
    const registeredBefore = new Date(now - REGISTERED_CLIENT_DAYS * 86_400_000).toISOString();
    void this.store.deleteExpired(new Date(now).toISOString(), registeredBefore).catch(() => undefined);
  }
}
