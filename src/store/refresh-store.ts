// Refresh bookkeeping: claims on refresh slots (one claimant across instances), the served
// dataset's version, the refresh runs' log, and the meta entries (each source's cursor, the
// demo universe's date). What the refresh job and start-up coordinate through.

import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/** Who holds a claim: an instance id, and the process to check for liveness. */
export interface ClaimHolder {
  instance: string;
  host: string;
  pid: number;
}

export interface SlotClaim extends ClaimHolder {
  slot: string;
  claimedAt: string;
  expiresAt: string;
  done: boolean;
}

export interface RefreshRun {
  id: number;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  detail: string;
}

export interface RefreshStore {
  /** Claimants may be on other hosts (PostgreSQL; SQLite's are all on one, one file): refresh/claims.ts renews leases only then (./dialect.ts). */
  readonly sharedByInstances: boolean;

  /**
   * Claims a slot (a refresh hour, the first load) for `holder`: true for exactly one claimant
   * across instances. An unfinished claim of `deadInstance` (a holder the caller found gone:
   * refresh/claims.ts) is taken over; a finished one never.
   */
  claimSlot(slot: string, holder: ClaimHolder, at: string, expiresAt: string, deadInstance?: string): Promise<boolean>;
  slotClaim(slot: string): Promise<SlotClaim | null>;
  /** Extends the holder's lease; false when the claim is no longer its own. */
  renewClaim(slot: string, instance: string, expiresAt: string): Promise<boolean>;
  /** The claimed work landed: the claim is kept, done, and never taken over. */
  finishClaim(slot: string, instance: string): Promise<void>;
  /** Gives the claim up unfinished (a stop, a failure): the next claimant gets it at once. */
  releaseClaim(slot: string, instance: string): Promise<void>;
  /** The served dataset's version as recorded in the database; 0 before the first. */
  datasetVersion(): Promise<number>;
  /** Atomically increments the dataset version and returns the new one. */
  bumpDatasetVersion(): Promise<number>;

  /** A run in status `running`; `detail` says who runs it (src/refresh/runs.ts) until it is finished. */
  startRefreshRun(at: string, detail?: string): Promise<number>;
  finishRefreshRun(id: number, at: string, status: string, detail: string): Promise<void>;
  refreshRuns(limit: number): Promise<RefreshRun[]>;

  /** A value kept by name (a source's cursor, the demo universe's date); null when none was set. */
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
}

const DATASET_VERSION = 'dataset_version';

export class KyselyRefreshStore implements RefreshStore {
  constructor(
    private readonly db: Kysely<DB>,
    readonly sharedByInstances: boolean,
  ) {}

  async claimSlot(slot: string, holder: ClaimHolder, at: string, expiresAt: string, deadInstance?: string): Promise<boolean> {
    // One statement: of several claimants (or several taking over one dead holder) exactly one
    // row version wins; PostgreSQL re-checks the WHERE on the row it locked.
    const row = await this.db
      .insertInto('refresh_claims')
      .values({ slot, instance: holder.instance, claimed_at: at, host: holder.host, pid: holder.pid, expires_at: expiresAt, done: 0 })
      .onConflict((oc) =>
        oc
          .column('slot')
          .doUpdateSet({
            instance: sql.ref('excluded.instance'),
            claimed_at: sql.ref('excluded.claimed_at'),
            host: sql.ref('excluded.host'),
            pid: sql.ref('excluded.pid'),
            expires_at: sql.ref('excluded.expires_at'),
          })
          .where('refresh_claims.done', '=', 0)
          // Nothing matches '' (instance ids are never empty): no dead holder named, no takeover.
          .where('refresh_claims.instance', '=', deadInstance ?? ''),
      )
      .returning('instance')
      .executeTakeFirst();
    return row?.instance === holder.instance;
  }

  async slotClaim(slot: string): Promise<SlotClaim | null> {
    const r = await this.db.selectFrom('refresh_claims').selectAll().where('slot', '=', slot).executeTakeFirst();
    if (!r) return null;
    return { slot: r.slot, instance: r.instance, host: r.host, pid: Number(r.pid), claimedAt: r.claimed_at, expiresAt: r.expires_at, done: Number(r.done) === 1 };
  }

  async renewClaim(slot: string, instance: string, expiresAt: string): Promise<boolean> {
    const res = await this.db
      .updateTable('refresh_claims')
      .set({ expires_at: expiresAt })
      .where('slot', '=', slot)
      .where('instance', '=', instance)
      .where('done', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async finishClaim(slot: string, instance: string): Promise<void> {
    await this.db.updateTable('refresh_claims').set({ done: 1 }).where('slot', '=', slot).where('instance', '=', instance).execute();
  }

  async releaseClaim(slot: string, instance: string): Promise<void> {
    await this.db.deleteFrom('refresh_claims').where('slot', '=', slot).where('instance', '=', instance).where('done', '=', 0).execute();
  }

  async datasetVersion(): Promise<number> {
    return Number((await this.getMeta(DATASET_VERSION)) ?? 0);
  }

  async bumpDatasetVersion(): Promise<number> {
    const row = await this.db
      .insertInto('meta')
      .values({ key: DATASET_VERSION, value: '1' })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: sql<string>`cast(cast(meta.value as integer) + 1 as text)` }))
      .returning('value')
      .executeTakeFirstOrThrow();
    return Number(row.value);
  }

  async startRefreshRun(at: string, detail = ''): Promise<number> {
    const row = await this.db
      .insertInto('refresh_runs')
      .values({ started_at: at, status: 'running', detail })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async finishRefreshRun(id: number, at: string, status: string, detail: string): Promise<void> {
    await this.db.updateTable('refresh_runs').set({ finished_at: at, status, detail }).where('id', '=', id).execute();
  }

  async refreshRuns(limit: number): Promise<RefreshRun[]> {
    const rows = await this.db.selectFrom('refresh_runs').selectAll().orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status, detail: r.detail }));
  }

  async getMeta(key: string): Promise<string | null> {
    const row = await this.db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}
