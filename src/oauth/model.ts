// The @node-oauth/oauth2-server model over the OAuth store: the library runs the protocol
// (authorization code grant, PKCE S256 verification, refresh token rotation, error codes); this
// file only stores and reads. Codes and tokens are kept by their SHA-256.

import { createHash, randomBytes } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthStore } from '../store/oauth-store.js';
import { matchRedirectUri, type Clients } from './clients.js';
import { MCP_SCOPE } from './metadata.js';

/** Who granted a code or token: the API key it acts as, and the resource it is for. */
export interface Grantor {
  keyId: number;
  resource: string;
  /** The SHA-256 of the code a token descends from; absent while the code itself is issued. */
  grant?: string;
}

const GRANTS = ['authorization_code', 'refresh_token'];

export const secretHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Access and refresh tokens carry a readable prefix (secret scanners, logs that must not hold them). */
export const ACCESS_TOKEN_PREFIX = 'mcp_at_';
const REFRESH_TOKEN_PREFIX = 'mcp_rt_';

const grantorOf = (user: OAuth2Server.User): Grantor => ({ keyId: Number(user.keyId), resource: String(user.resource), ...(typeof user.grant === 'string' ? { grant: user.grant } : {}) });

export function oauthModel(store: OAuthStore, clients: Clients): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  const clientOf = (id: string, redirectUris: string[]): OAuth2Server.Client => ({ id, redirectUris, grants: GRANTS });
  return {
    // The stored client only: the authorize route resolved (and fetched) it just before.
    async getClient(clientId: string) {
      const client = await clients.stored(clientId);
      return client === null ? null : { ...clientOf(client.clientId, client.redirectUris), name: client.name };
    },

    // Exact, except a loopback redirect URI's port (RFC 8252 section 7.3).
    validateRedirectUri: async (redirectUri, client) => matchRedirectUri(typeof client.redirectUris === 'string' ? [client.redirectUris] : (client.redirectUris ?? []), redirectUri) !== null,

    generateAccessToken: async () => ACCESS_TOKEN_PREFIX + randomBytes(32).toString('base64url'),
    generateRefreshToken: async () => REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url'),

    async validateScope(_user, _client, scope) {
      if (scope === undefined || scope.length === 0) return [MCP_SCOPE];
      return scope.every((s) => s === MCP_SCOPE) ? [MCP_SCOPE] : false;
    },

    async saveAuthorizationCode(code, client, user) {
      const grantor = grantorOf(user);
      await store.insertCode({
        codeHash: secretHash(code.authorizationCode),
        clientId: client.id,
        keyId: grantor.keyId,
        redirectUri: code.redirectUri,
        codeChallenge: code.codeChallenge ?? '',
        codeChallengeMethod: code.codeChallengeMethod ?? '',
        resource: grantor.resource,
        scope: (code.scope ?? []).join(' '),
        expiresAt: code.expiresAt.toISOString(),
      });
      return { ...code, client, user };
    },

    async getAuthorizationCode(authorizationCode) {
      const hash = secretHash(authorizationCode);
      const r = await store.code(hash);
      if (r === null) return null;
      // A spent code presented again: whoever holds it may not be its client, so every token
      // issued from it is revoked (RFC 6749 section 4.1.2) and the request refused (invalid_grant).
      if (r.usedAt !== null) {
        await store.replayCode(hash, new Date().toISOString());
        return null;
      }
      return {
        authorizationCode,
        expiresAt: new Date(r.expiresAt),
        redirectUri: r.redirectUri,
        scope: r.scope.split(' ').filter(Boolean),
        client: clientOf(r.clientId, [r.redirectUri]),
        user: { keyId: r.keyId, resource: r.resource, grant: hash } satisfies Grantor,
        codeChallenge: r.codeChallenge,
        codeChallengeMethod: r.codeChallengeMethod,
      };
    },

    // Marks the code used; the loser of two exchanges at once is a replay too.
    async revokeAuthorizationCode(code) {
      const hash = secretHash(code.authorizationCode);
      const now = new Date().toISOString();
      if (await store.takeCode(hash, now)) return true;
      await store.replayCode(hash, now);
      return false;
    },

    async saveToken(token, client, user) {
      const grantor = grantorOf(user);
      const now = new Date().toISOString();
      const scope = (token.scope ?? []).join(' ');
      const accessHash = secretHash(token.accessToken);
      const base = { clientId: client.id, keyId: grantor.keyId, resource: grantor.resource, scope, createdAt: now, grantId: grantor.grant ?? null };
      await store.insertToken({ ...base, tokenHash: accessHash, kind: 'access', expiresAt: (token.accessTokenExpiresAt ?? new Date()).toISOString(), siblingHash: null });
      if (token.refreshToken !== undefined) {
        await store.insertToken({ ...base, tokenHash: secretHash(token.refreshToken), kind: 'refresh', expiresAt: (token.refreshTokenExpiresAt ?? new Date()).toISOString(), siblingHash: accessHash });
      }
      // A replay that arrived while these were being issued revokes them as well.
      if (grantor.grant !== undefined && (await store.codeReplayed(grantor.grant))) {
        await store.deleteGrant(grantor.grant);
        throw new OAuth2Server.InvalidGrantError('Invalid grant: authorization code is invalid');
      }
      return { ...token, client, user };
    },

    async getAccessToken(accessToken) {
      const r = await store.token(secretHash(accessToken), 'access');
      if (r === null || r.keyRevokedAt !== null) return null;
      return {
        accessToken,
        accessTokenExpiresAt: new Date(r.expiresAt),
        scope: r.scope.split(' ').filter(Boolean),
        client: clientOf(r.clientId, []),
        user: { keyId: r.keyId, resource: r.resource } satisfies Grantor,
      };
    },

    async getRefreshToken(refreshToken) {
      const r = await store.token(secretHash(refreshToken), 'refresh');
      // A revoked key's refresh token is refused like an unknown one (invalid_grant).
      if (r === null || r.keyRevokedAt !== null) return null;
      return {
        refreshToken,
        refreshTokenExpiresAt: new Date(r.expiresAt),
        scope: r.scope.split(' ').filter(Boolean),
        client: clientOf(r.clientId, []),
        user: { keyId: r.keyId, resource: r.resource, ...(r.grantId === null ? {} : { grant: r.grantId }) } satisfies Grantor,
      };
    },

    // Rotation: the old refresh token and the access token issued beside it end here.
    revokeToken: async (token) => store.deleteToken(secretHash(token.refreshToken)),
  };
}
