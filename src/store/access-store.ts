// Access: API keys (stored as a hash only: src/access/keys.ts) and the daily call counts per
// key. What the gate reads on every call (the key lookup, the count) and the keys CLI writes.

import { sql, type Kysely } from 'kysely';
import type { QueryRunner } from './queries.js';
import type { DB } from './schema.js';

export type Plan = 'free' | 'paid';

export interface ApiKeyRecord {
  id: number;
  prefix: string;
  hash: string;
  name: string;
  plan: Plan;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface ApiKeyListing extends ApiKeyRecord {
  callsToday: number;
}

export interface AccessStore {
  insertKey(key: Omit<ApiKeyRecord, 'id' | 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord>;
  keyByHash(hash: string): Promise<ApiKeyRecord | null>;
  /**
   * The key `keyByHash` would return, when it is held in memory and nothing can have changed
   * it since; undefined when only a read can tell. Absent on engines that cannot tell cheaply.
   */
  knownKey?(hash: string): ApiKeyRecord | undefined;
  listKeys(day: string): Promise<ApiKeyListing[]>;
  /** Returns false when no live key has that prefix. */
  revokeKey(prefix: string, at: string): Promise<boolean>;
  setKeyPlan(prefix: string, plan: Plan): Promise<boolean>;
  touchKey(id: number, at: string): Promise<void>;
  /** Keys not revoked. */
  countKeys(): Promise<number>;
  /**
   * True once any key was ever created in this store, revoked or not (a row of `api_keys`, or
   * meta `keys_issued`, which a restore carries over): a start creates a demo key only where this
   * is false.
   */
  everHadKey(): Promise<boolean>;
  /** The form the stored key hashes are in (meta `key_hash_scheme`); null when none is stored. */
  keyHashScheme(): Promise<string | null>;
  /**
   * Replaces every stored hash `h` with `rehash(h)` and the scheme `from` (null: none stored)
   * with `to`, in one transaction; false (nothing changed) when the stored scheme was not
   * `from`, e.g. another process moved it first.
   */
  rehashKeys(from: string | null, to: string, rehash: (hash: string) => string): Promise<boolean>;

  /**
   * Adds one call for the key on the day if its count is below `limit` and returns the new
   * count; null (nothing added) when the day is already full. One atomic statement.
   */
  incrementUsage(keyId: number, day: string, limit?: number): Promise<number | null>;
  usage(keyId: number, day: string): Promise<number>;
  /** Adds counted calls (key, day, calls) in one transaction: the buffered counter's flush. */
  addUsage(rows: readonly { keyId: number; day: string; calls: number }[]): Promise<void>;
}

/** Meta: a key was created in this store at some time. */
const KEYS_ISSUED = 'keys_issued';
/** Meta: the form of the stored key hashes (src/access/keys.ts). */
const KEY_HASH_SCHEME = 'key_hash_scheme';

export class KyselyAccessStore implements AccessStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly queries: QueryRunner,
    /** A number that changes whenever another connection commits (SQLite): see `keyCache`. */
    private readonly dataVersion?: () => number,
  ) {}

  async insertKey(key: Omit<ApiKeyRecord, 'id' | 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord> {
    const row = await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('meta').values({ key: KEYS_ISSUED, value: '1' }).onConflict((oc) => oc.column('key').doNothing()).execute();
      return trx
        .insertInto('api_keys')
        .values({ prefix: key.prefix, hash: key.hash, name: key.name, plan: key.plan, created_at: key.createdAt })
        .returning('id')
        .executeTakeFirstOrThrow();
    });
    this.keysChanged();
    return { ...key, id: row.id, revokedAt: null, lastUsedAt: null };
  }

  knownKey(hash: string): ApiKeyRecord | undefined {
    const version = this.dataVersion?.();
    if (version === undefined) return undefined;
    if (version !== this.keyCacheVersion) {
      this.keyCache.clear();
      this.keyCacheVersion = version;
    }
    return this.keyCache.get(hash);
  }

  async keyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const hit = this.knownKey(hash);
    if (hit !== undefined) return hit;
    const version = this.keyCacheVersion;
    const generation = this.keyGeneration;
    const run = this.queries.hot('keyByHash', (p) => this.db.selectFrom('api_keys').selectAll().where('hash', '=', p.text(0)));
    const [row] = await run([hash]);
    if (!row) return null; // unknown keys are not cached: a key created later is found at once
    const key = toKey(row);
    // Not cached when a key changed while the lookup ran: it may have read the old row.
    if (version !== undefined && generation === this.keyGeneration && version === this.dataVersion?.()) {
      if (this.keyCache.size >= 10_000) this.keyCache.clear();
      this.keyCache.set(hash, key);
    }
    return key;
  }

  /**
   * Known keys by hash, on engines that can tell cheaply whether anything else wrote to the
   * database since (SQLite's data_version, which changes on every commit of another
   * connection, such as `keys revoke` from the CLI; read at most once per millisecond). Any
   * such commit, and any key change made through this store, empties it, so a revocation or a
   * plan change counts from the next call.
   */
  private readonly keyCache = new Map<string, ApiKeyRecord>();
  private keyCacheVersion: number | undefined;
  private keyGeneration = 0;

  private keysChanged(): void {
    this.keyCache.clear();
    this.keyGeneration += 1;
  }

  async listKeys(day: string): Promise<ApiKeyListing[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .leftJoin('usage', (j) => j.onRef('usage.key_id', '=', 'api_keys.id').on('usage.day', '=', day))
      .selectAll('api_keys')
      .select('usage.calls')
      .orderBy('api_keys.id')
      .execute();
    return rows.map((r) => ({ ...toKey(r), callsToday: Number(r.calls ?? 0) }));
  }

  async revokeKey(prefix: string, at: string): Promise<boolean> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('prefix', '=', prefix)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.keysChanged();
    return Number(res.numUpdatedRows) > 0;
  }

  async setKeyPlan(prefix: string, plan: Plan): Promise<boolean> {
    const res = await this.db.updateTable('api_keys').set({ plan }).where('prefix', '=', prefix).executeTakeFirst();
    this.keysChanged();
    return Number(res.numUpdatedRows) > 0;
  }

  async touchKey(id: number, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async countKeys(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async everHadKey(): Promise<boolean> {
    const key = await this.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst();
    if (key !== undefined) return true;
    const issued = await this.db.selectFrom('meta').select('value').where('key', '=', KEYS_ISSUED).executeTakeFirst();
    return issued !== undefined;
  }

  async keyHashScheme(): Promise<string | null> {
    const row = await this.db.selectFrom('meta').select('value').where('key', '=', KEY_HASH_SCHEME).executeTakeFirst();
    return row?.value ?? null;
  }

  async rehashKeys(from: string | null, to: string, rehash: (hash: string) => string): Promise<boolean> {
    const moved = await this.db.transaction().execute(async (trx) => {
      // The scheme row is claimed first: a second process doing the same waits on it (PostgreSQL)
      // or on the write lock (SQLite), then finds the scheme moved and changes nothing.
      const claimed =
        from === null
          ? await trx
              .insertInto('meta')
              .values({ key: KEY_HASH_SCHEME, value: to })
              .onConflict((oc) => oc.column('key').doNothing())
              .returning('key')
              .executeTakeFirst()
          : await trx.updateTable('meta').set({ value: to }).where('key', '=', KEY_HASH_SCHEME).where('value', '=', from).returning('key').executeTakeFirst();
      if (claimed === undefined) return false;
      const rows = await trx.selectFrom('api_keys').select(['id', 'hash']).execute();
      for (const row of rows) await trx.updateTable('api_keys').set({ hash: rehash(row.hash) }).where('id', '=', row.id).execute();
      return true;
    });
    this.keysChanged();
    return moved;
  }

  async incrementUsage(keyId: number, day: string, limit = Number.POSITIVE_INFINITY): Promise<number | null> {
    if (limit <= 0) return null;
    // One conditional upsert, so concurrent requests (and instances sharing one PostgreSQL)
    // neither lose a count nor slip past the quota.
    const bounded = Number.isFinite(limit);
    const run = this.queries.hot(bounded ? 'incrementUsageBelow' : 'incrementUsage', (p) =>
      this.db
        .insertInto('usage')
        .values({ key_id: p.number(0), day: p.text(1), calls: 1 })
        .onConflict((oc) => {
          const update = oc.columns(['key_id', 'day']).doUpdateSet({ calls: sql`usage.calls + 1` });
          return bounded ? update.where('usage.calls', '<', p.number(2)) : update;
        })
        .returning('calls'),
    );
    const [row] = await run(bounded ? [keyId, day, limit] : [keyId, day]);
    return row === undefined ? null : Number(row.calls);
  }

  async usage(keyId: number, day: string): Promise<number> {
    const run = this.queries.hot('usage', (p) => this.db.selectFrom('usage').select('calls').where('key_id', '=', p.number(0)).where('day', '=', p.text(1)));
    const [row] = await run([keyId, day]);
    return Number(row?.calls ?? 0);
  }

  async addUsage(rows: readonly { keyId: number; day: string; calls: number }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        await trx
          .insertInto('usage')
          .values({ key_id: row.keyId, day: row.day, calls: row.calls })
          .onConflict((oc) => oc.columns(['key_id', 'day']).doUpdateSet({ calls: sql`usage.calls + ${row.calls}` }))
          .execute();
      }
    });
  }
}

function toKey(r: {
  id: number;
  prefix: string;
  hash: string;
  name: string;
  plan: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}): ApiKeyRecord {
  return {
    id: r.id,
    prefix: r.prefix,
    hash: r.hash,
    name: r.name,
    plan: r.plan === 'paid' ? 'paid' : 'free',
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
  };
}
