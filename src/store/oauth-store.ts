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
  /** A metadata document is fetched again after this; null for a registered client. */
  expiresAt: string | null;
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

/** A stored code with its use: the first exchange sets `usedAt`; a later one is a replay. */
export interface OAuthCodeState extends OAuthCodeRecord {
  usedAt: string | null;
  replayedAt: string | null;
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
  /** The SHA-256 of the code the token descends from (carried through refreshes). */
  grantId: string | null;
  /** A refresh token's: the SHA-256 of the access token issued beside it. */
  siblingHash: string | null;
}

/** The sign-in page's grant between its steps: the key checked at step one and the request it is for. */
export interface OAuthPendingRecord {
  /** SHA-256 of the page's CSRF token (the cookie-bound session). */
  sessionHash: string;
  keyId: number;
  clientId: string;
  /** The authorization request's parameters as checked at step one. */
  request: Record<string, string>;
  expiresAt: string;
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
  code(codeHash: string): Promise<OAuthCodeState | null>;
  /** Marks the code used at `at`; true only for the one call that marked it (a code is used once). */
  takeCode(codeHash: string, at: string): Promise<boolean>;
  /**
   * A spent code presented again: marks it replayed and deletes every token issued from it
   * (through any refreshes). Returns how many tokens were deleted.
   */
  replayCode(codeHash: string, at: string): Promise<number>;
  /** True when the code was marked replayed (a token saved from it after that is revoked too). */
  codeReplayed(codeHash: string): Promise<boolean>;
  /** Deletes every token of the grant (the code hash); returns how many. */
  deleteGrant(grantId: string): Promise<number>;
  insertToken(token: OAuthTokenRecord): Promise<void>;
  /** The token of that kind with its key's row; null when there is none (or its key row is gone). */
  token(tokenHash: string, kind: TokenKind): Promise<OAuthTokenWithKey | null>;
  /**
   * Deletes the token, and for a refresh token the access token issued beside it; true only for
   * the one call that deleted it (a refresh token rotates once).
   */
  deleteToken(tokenHash: string): Promise<boolean>;
  /** Inserts or replaces the pending grant of a sign-in session. */
  putPending(pending: OAuthPendingRecord): Promise<void>;
  /** Deletes and returns the session's pending grant with its key's revocation; null when none or expired at `at`. */
  takePending(sessionHash: string, at: string): Promise<(OAuthPendingRecord & { keyRevokedAt: string | null }) | null>;
  /**
   * Deletes what expired before `at` (ISO 8601): codes, tokens and pending grants; document
   * clients whose cache expired and registered clients created before `registeredBefore`, when
   * no code or token of theirs is left. Returns how many rows.
   */
  deleteExpired(at: string, registeredBefore?: string): Promise<number>;
}

export class KyselyOAuthStore implements OAuthStore {
  constructor(private readonly db: Kysely<DB>) {}

  async putClient(c: OAuthClientRecord): Promise<void> {
    const row = { client_id: c.clientId, kind: c.kind, name: c.name, redirect_uris: JSON.stringify(c.redirectUris), created_at: c.createdAt, fetched_at: c.fetchedAt, expires_at: c.expiresAt };
    await this.db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ name: row.name, redirect_uris: row.redirect_uris, fetched_at: row.fetched_at, expires_at: row.expires_at }))
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
      expiresAt: r.expires_at,
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

  async code(codeHash: string): Promise<OAuthCodeState | null> {
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
      usedAt: r.used_at,
      replayedAt: r.replayed_at,
    };
  }

  async takeCode(codeHash: string, at: string): Promise<boolean> {
    const res = await this.db.updateTable('oauth_codes').set({ used_at: at }).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async replayCode(codeHash: string, at: string): Promise<number> {
    await this.db.updateTable('oauth_codes').set({ replayed_at: at }).where('code_hash', '=', codeHash).where('replayed_at', 'is', null).execute();
    return this.deleteGrant(codeHash);
  }

  async codeReplayed(codeHash: string): Promise<boolean> {
    const r = await this.db.selectFrom('oauth_codes').select('replayed_at').where('code_hash', '=', codeHash).executeTakeFirst();
    return r !== undefined && r.replayed_at !== null;
  }

  async deleteGrant(grantId: string): Promise<number> {
    const res = await this.db.deleteFrom('oauth_tokens').where('grant_id', '=', grantId).executeTakeFirst();
    return Number(res.numDeletedRows);
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
        grant_id: t.grantId,
        sibling_hash: t.siblingHash,
      })
      .execute();
  }

  async token(tokenHash: string, kind: TokenKind): Promise<OAuthTokenWithKey | null> {
    const r = await this.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('api_keys as k', 'k.id', 't.key_id')
      .select(['t.token_hash', 't.kind', 't.client_id', 't.key_id', 't.resource', 't.scope', 't.expires_at', 't.created_at', 't.grant_id', 't.sibling_hash', 'k.prefix', 'k.plan', 'k.revoked_at'])
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
      grantId: r.grant_id,
      siblingHash: r.sibling_hash,
      keyPrefix: r.prefix,
      keyPlan: r.plan === 'paid' ? 'paid' : 'free',
      keyRevokedAt: r.revoked_at,
    };
  }

  async deleteToken(tokenHash: string): Promise<boolean> {
    const row = await this.db.selectFrom('oauth_tokens').select('sibling_hash').where('token_hash', '=', tokenHash).executeTakeFirst();
    const res = await this.db.deleteFrom('oauth_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
    const deleted = Number(res.numDeletedRows) > 0;
    if (deleted && row?.sibling_hash) await this.db.deleteFrom('oauth_tokens').where('token_hash', '=', row.sibling_hash).where('kind', '=', 'access').execute();
    return deleted;
  }

  async putPending(p: OAuthPendingRecord): Promise<void> {
    const row = { session_hash: p.sessionHash, key_id: p.keyId, client_id: p.clientId, request: JSON.stringify(p.request), expires_at: p.expiresAt };
    await this.db
      .insertInto('oauth_pending')
      .values(row)
      .onConflict((oc) => oc.column('session_hash').doUpdateSet({ key_id: row.key_id, client_id: row.client_id, request: row.request, expires_at: row.expires_at }))
      .execute();
  }

  async takePending(sessionHash: string, at: string): Promise<(OAuthPendingRecord & { keyRevokedAt: string | null }) | null> {
    const r = await this.db
      .selectFrom('oauth_pending as p')
      .innerJoin('api_keys as k', 'k.id', 'p.key_id')
      .select(['p.session_hash', 'p.key_id', 'p.client_id', 'p.request', 'p.expires_at', 'k.revoked_at'])
      .where('p.session_hash', '=', sessionHash)
      .executeTakeFirst();
    // Taken once: of two posts of one form, only the one whose delete removed the row goes on.
    const res = await this.db.deleteFrom('oauth_pending').where('session_hash', '=', sessionHash).executeTakeFirst();
    if (!r || Number(res.numDeletedRows) === 0 || r.expires_at <= at) return null;
    return { sessionHash: r.session_hash, keyId: r.key_id, clientId: r.client_id, request: JSON.parse(r.request) as Record<string, string>, expiresAt: r.expires_at, keyRevokedAt: r.revoked_at };
  }

  async deleteExpired(at: string, registeredBefore?: string): Promise<number> {
    const codes = await this.db.deleteFrom('oauth_codes').where('expires_at', '<', at).executeTakeFirst();
    const tokens = await this.db.deleteFrom('oauth_tokens').where('expires_at', '<', at).executeTakeFirst();
    const pending = await this.db.deleteFrom('oauth_pending').where('expires_at', '<', at).executeTakeFirst();
    const clients = await this.db
      .deleteFrom('oauth_clients')
      .where((eb) =>
        eb.or([
          eb.and([eb('kind', '=', 'document'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '<', at)])]),
          ...(registeredBefore === undefined ? [] : [eb.and([eb('kind', '=', 'registered'), eb('created_at', '<', registeredBefore)])]),
        ]),
      )
      .where((eb) => eb.not(eb.exists(eb.selectFrom('oauth_codes').select('code_hash').whereRef('oauth_codes.client_id', '=', 'oauth_clients.client_id'))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('oauth_tokens').select('token_hash').whereRef('oauth_tokens.client_id', '=', 'oauth_clients.client_id'))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('oauth_pending').select('session_hash').whereRef('oauth_pending.client_id', '=', 'oauth_clients.client_id'))))
      .executeTakeFirst();
    return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows) + Number(pending.numDeletedRows) + Number(clients.numDeletedRows);
  }
}
