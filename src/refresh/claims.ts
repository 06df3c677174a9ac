// Claims that die with their holder. A slot (an hourly refresh, the first load of an empty
// store) is claimed in the database by one instance; if that instance dies before its work
// landed, the next claimant takes the slot over, and says so in the log.
//
// How a claimant knows the holder is dead:
// - Same pid namespace of the same boot (always so on SQLite, whose file is local; so on
//   PostgreSQL when instances share a host): the holder's process is gone (`kill(pid, 0)`).
//   This is at once, whatever the lease says, so a restart after SIGKILL does not wait.
// - Elsewhere (PostgreSQL, instances on other hosts): the holder renews its lease every
//   `leaseMs / 3`; a lease not renewed for `leaseMs` has ended.

import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClaimHolder, RefreshStore, SlotClaim } from '../store/refresh-store.js';

export const DEFAULT_LEASE_MS = 15_000;

/** This process's pid namespace on this boot (Linux), else the host name. */
export function processHost(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${boot}/${readlinkSync('/proc/self/ns/pid')}`.slice(0, 200);
  } catch {
    return hostname().slice(0, 200);
  }
}

/** Instance ids made in this process: a claim under this pid but another id is a dead predecessor's. */
const ownInstances = new Set<string>();

/** Whether a process of this pid lives in this pid namespace. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why `claim`'s holder is gone, or null while it may still be working. */
export function deadHolder(claim: SlotClaim, me: ClaimHolder, now: Date): string | null {
  if (claim.done || claim.instance === me.instance) return null;
  if (claim.host === me.host) {
    // This pid under an id this process never made: a process before us had this pid.
    if (claim.pid === me.pid) return ownInstances.has(claim.instance) ? null : 'holder process gone';
    return processAlive(claim.pid) ? null : 'holder process gone';
  }
  return claim.expiresAt < now.toISOString() ? 'lease ended' : null;
}

export interface Lease {
  readonly slot: string;
  /** Aborted when the claim was lost (taken over after this process stalled past its lease). */
  readonly lost: AbortSignal;
  /** The work landed: keep the claim, done. */
  finish(): Promise<void>;
  /** Give the claim up unfinished; the next claimant gets it at once. */
  release(): Promise<void>;
}

export class Claims {
  readonly holder: ClaimHolder;

  constructor(
    private readonly store: RefreshStore,
    private readonly logger: Logger,
    options: { instance?: string; leaseMs?: number } = {},
  ) {
    this.holder = { instance: options.instance ?? randomUUID(), host: processHost(), pid: process.pid };
    ownInstances.add(this.holder.instance);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renews = store.sharedByInstances;
  }

  private readonly leaseMs: number;
  private readonly renews: boolean;

  /** Claims `slot`, taking it over from a dead holder; null when another live holder has it or it is done. */
  async acquire(slot: string): Promise<Lease | null> {
    const now = new Date();
    const previous = await this.store.slotClaim(slot);
    const reason = previous ? deadHolder(previous, this.holder, now) : null;
    const expires = new Date(now.getTime() + this.leaseMs).toISOString();
    const claimed = await this.store.claimSlot(slot, this.holder, now.toISOString(), expires, reason === null ? undefined : previous?.instance);
    if (!claimed) return null;
    if (previous && !previous.done && previous.instance !== this.holder.instance) {
      this.logger.warn(
        { slot, previousInstance: previous.instance, previousPid: previous.pid, claimedAt: previous.claimedAt, reason },
        'claim taken over from a holder that died',
      );
    }
    return this.lease(slot);
  }

  private lease(slot: string): Lease {
    const { store, holder, leaseMs, logger } = this;
    const lost = new AbortController();
    let expiresAt = Date.now() + leaseMs;
    // SQLite: every claimant is on this host and checks the holder's process, never the lease;
    // and a renewal would wait (synchronously) for the first load's write lock.
    const renew = setInterval(() => {
      if (!this.renews) return;
      const next = Date.now() + leaseMs;
      store.renewClaim(slot, holder.instance, new Date(next).toISOString()).then(
        (ok) => {
          if (ok) expiresAt = next;
          else if (!lost.signal.aborted) {
            logger.error({ slot }, 'claim lost to another instance; stopping this work');
            lost.abort(new Error(`claim ${slot} lost`));
          }
        },
        () => {
          // The database is away: the lease runs out unless a later renewal lands.
          if (Date.now() > expiresAt && !lost.signal.aborted) lost.abort(new Error(`claim ${slot}: lease ended while the database was unreachable`));
        },
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    renew.unref();
    return {
      slot,
      lost: lost.signal,
      finish: async () => {
        clearInterval(renew);
        await store.finishClaim(slot, holder.instance);
      },
      release: async () => {
        clearInterval(renew);
        await store.releaseClaim(slot, holder.instance);
      },
    };
  }
}
