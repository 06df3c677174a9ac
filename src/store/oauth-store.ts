// The OAuth authorization server's state (src/oauth/): its clients, authorization codes and
// tokens. Codes and tokens are stored as their SHA-256 only (the caller hashes); the secret
// itself is never written. A token is looked up together with its API key's row, so a token of a
// revoked key is refused on the very next request, on every instance.

import type { Kysely } from 'kysely';
import type { Plan } from './access-store.js';
import type { DB } from './schema.js';

export interface OAuthClientRecord {
  clientId: string;
  /** `registered`: dynamic registration (RFC 7591); `document`: a client ID metadata document. */
  kind: 'registered' | 'document';
  name: string;
  redirectUris: string[];
  createdAt: string;
  /** When a metadata document was last fetched (a registered client: its creation). */
  fetchedAt: string;
}

export interface OAuthCodeRecord {
  codeHash: string;
  clientId: string;
  keyId: number;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  resource: string;
  scope: string;
  expiresAt: string;
}

export type TokenKind = 'access' | 'refresh';

export interface OAuthTokenRecord {
  tokenHash: string;
  kind: TokenKind;
  clientId: string;
  keyId: number;
  resource: string;
  scope: string;
  expiresAt: string;
  createdAt: string;
}

/** A token with the key it acts as, as that key's row is now. */
export interface OAuthTokenWithKey extends OAuthTokenRecord {
  keyPrefix: string;
  keyPlan: Plan;
  keyRevokedAt: string | null;
}

export interface OAuthStore {
  /** Inserts or replaces the client (a metadata document is replaced when fetched again). */
  putClient(client: OAuthClientRecord): Promise<void>;
  client(clientId: string): Promise<OAuthClientRecord | null>;
  insertCode(code: OAuthCodeRecord): Promise<void>;
  code(codeHash: string): Promise<OAuthCodeRecord | null>;
  /** Deletes the code; true only for the one call that deleted it (a code is used once). */
  takeCode(codeHash: string): Promise<boolean>;
  insertToken(token: OAuthTokenRecord): Promise<void>;
  /** The token of that kind with its key's row; null when there is none (or its key row is gone). */
  token(tokenHash: string, kind: TokenKind): Promise<OAuthTokenWithKey | null>;
  /** Deletes the token; true only for the one call that deleted it (a refresh token rotates once). */
  deleteToken(tokenHash: string): Promise<boolean>;
  /** Deletes codes and tokens that expired before `at` (ISO 8601); returns how many. */
  deleteExpired(at: string): Promise<number>;
}

export class KyselyOAuthStore implements OAuthStore {
  constructor(private readonly db: Kysely<DB>) {}

  async putClient(c: OAuthClientRecord): Promise<void> {
    const row = { client_id: c.clientId, kind: c.kind, name: c.name, redirect_uris: JSON.stringify(c.redirectUris), created_at: c.createdAt, fetched_at: c.fetchedAt };
    await this.db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ name: row.name, redirect_uris: row.redirect_uris, fetched_at: row.fetched_at }))
      .execute();
  }

  async client(clientId: string): Promise<OAuthClientRecord | null> {
    const r = await this.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    if (!r) return null;
    return {
      clientId: r.client_id,
      kind: r.kind === 'document' ? 'document' : 'registered',
      name: r.name,
      redirectUris: JSON.parse(r.redirect_uris) as string[],
      createdAt: r.created_at,
      fetchedAt: r.fetched_at,
    };
  }

  async insertCode(c: OAuthCodeRecord): Promise<void> {
    await this.db
      .insertInto('oauth_codes')
      .values({
        code_hash: c.codeHash,
        client_id: c.clientId,
        key_id: c.keyId,
        redirect_uri: c.redirectUri,
        code_challenge: c.codeChallenge,
        code_challenge_method: c.codeChallengeMethod,
        resource: c.resource,
        scope: c.scope,
        expires_at: c.expiresAt,
      })
      .execute();
  }

  async code(codeHash: string): Promise<OAuthCodeRecord | null> {
    const r = await this.db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    if (!r) return null;
    return {
      codeHash: r.code_hash,
      clientId: r.client_id,
      keyId: r.key_id,
      redirectUri: r.redirect_uri,
      codeChallenge: r.code_challenge,
      codeChallengeMethod: r.code_challenge_method,
      resource: r.resource,
      scope: r.scope,
      expiresAt: r.expires_at,
    };
  }

  async takeCode(codeHash: string): Promise<boolean> {
    const res = await this.db.deleteFrom('oauth_codes').where('code_hash', '=', codeHash).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async insertToken(t: OAuthTokenRecord): Promise<void> {
    await this.db
      .insertInto('oauth_tokens')
      .values({
        token_hash: t.tokenHash,
        kind: t.kind,
        client_id: t.clientId,
        key_id: t.keyId,
        resource: t.resource,
        scope: t.scope,
        expires_at: t.expiresAt,
        created_at: t.createdAt,
      })
      .execute();
  }

  async token(tokenHash: string, kind: TokenKind): Promise<OAuthTokenWithKey | null> {
    const r = await this.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('api_keys as k', 'k.id', 't.key_id')
      .select(['t.token_hash', 't.kind', 't.client_id', 't.key_id', 't.resource', 't.scope', 't.expires_at', 't.created_at', 'k.prefix', 'k.plan', 'k.revoked_at'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.kind', '=', kind)
      .executeTakeFirst();
    if (!r) return null;
    return {
      tokenHash: r.token_hash,
      kind,
      clientId: r.client_id,
      keyId: r.key_id,
      resource: r.resource,
      scope: r.scope,
      expiresAt: r.expires_at,
      createdAt: r.created_at,
      keyPrefix: r.prefix,
      keyPlan: r.plan === 'paid' ? 'paid' : 'free',
      keyRevokedAt: r.revoked_at,
    };
  }

  async deleteToken(tokenHash: string): Promise<boolean> {
    const res = await this.db.deleteFrom('oauth_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async deleteExpired(at: string): Promise<number> {
    const codes = await this.db.deleteFrom('oauth_codes').where('expires_at', '<', at).executeTakeFirst();
    const tokens = await this.db.deleteFrom('oauth_tokens').where('expires_at', '<', at).executeTakeFirst();
    return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows);
  }
}
