// Delisted companies (docs/calculations.md, "The universe of a day"): a security's `delisted_on`
// is the date of its last bar once its market has traded DELISTED_AFTER_SESSIONS sessions without
// it, null otherwise. The price feeds list every listed code on every session, a suspended one too
// (KRX and FSC give it with no volume and its last close), so a code missing from its market's
// sessions has left the listing, and its last bar is its last trading day. Derived from the bars
// by every write that brings bars (./market-data.ts) and, for a store written before the column,
// by the derived-forms step (./derived.ts): what the loaders see of a delisting is the rows they
// stop bringing. A code that trades again (a relisting, the end of a long gap in the feed) is
// listed again by the next write. The history of a delisted company is kept.

import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * Sessions of its market without a bar of a code after which the code counts as delisted (about a
 * month): KR feeds list a suspended code every session, but a US feed gives a bar only for a
 * session with a trade, so a thinly traded ticker may miss a few; and a day's feed that arrived
 * late or partly must not delist anything.
 */
export const DELISTED_AFTER_SESSIONS = 20;

/** The version of the derivation, kept as the derived-forms step keeps the packs' (./derived.ts). */
export const DELISTINGS_FORMAT = 1;

/**
 * The date on or after which a code of `market` must have a bar to count as listed: the market's
 * DELISTED_AFTER_SESSIONS-th latest session; null while the market has fewer sessions.
 */
async function listedSince(db: Kysely<DB>, market: string): Promise<string | null> {
  let before: string | null = null;
  for (let k = 0; k < DELISTED_AFTER_SESSIONS; k++) {
    // Down the bars' date index from the top, to the first bar of the market: a few index
    // entries, not an aggregate over every bar.
    let q = db
      .selectFrom('bars')
      .where((eb) => eb.exists(eb.selectFrom('securities').select('securities.id').whereRef('securities.id', '=', 'bars.security_id').where('securities.market', '=', market)))
      .select('bars.date')
      .orderBy('bars.date', 'desc')
      .limit(1);
    if (before !== null) q = q.where('bars.date', '<', before);
    const row = await q.executeTakeFirst();
    const date = row?.date ?? null;
    if (date === null) return null;
    before = date;
  }
  return before;
}

/** Which securities of a market a derivation looks at: all, those with ids in (`after`, `through`], or those of `ids`. */
export type DelistingScope = { after: number; through: number } | { ids: readonly number[] } | undefined;

/**
 * Sets `delisted_on` of the securities of `markets` in `scope` from their bars and their market's
 * sessions (see the top of this file). Answers how many securities it changed.
 */
export async function deriveDelistings(db: Kysely<DB>, markets: Iterable<string>, scope?: DelistingScope): Promise<number> {
  let changed = 0;
  for (const market of new Set(markets)) changed += await deriveMarket(db, market, await listedSince(db, market), scope);
  return changed;
}

/**
 * What a write that brought bars of `written` (per market: the latest date among them and the
 * securities they are of) changes: a bar of one of the market's last sessions moves its sessions
 * on, so every security of the market is looked at again (one seek of the bars' key each); older
 * bars (a backfill) change only their own securities' last bars.
 */
export async function deriveAfterWrite(db: Kysely<DB>, written: ReadonlyMap<string, { latest: string; ids: ReadonlySet<number> }>): Promise<number> {
  let changed = 0;
  for (const [market, { latest, ids }] of written) {
    const since = await listedSince(db, market);
    changed += await deriveMarket(db, market, since, since === null || latest >= since ? undefined : { ids: [...ids] });
  }
  return changed;
}

async function deriveMarket(db: Kysely<DB>, market: string, since: string | null, scope: DelistingScope): Promise<number> {
  let changed = 0;
  const ids = scope !== undefined && 'ids' in scope ? scope.ids : null;
  for (let k = 0; ids === null ? k === 0 : k < ids.length; k += STOCKS_PER_READ) {
    let q = db
      .selectFrom('securities')
      .where('securities.market', '=', market)
      .select(['securities.id', 'securities.delisted_on', sql<string | null>`(select max(bars.date) from bars where bars.security_id = securities.id)`.as('last')]);
    if (ids !== null) q = q.where('securities.id', 'in', ids.slice(k, k + STOCKS_PER_READ));
    else if (scope !== undefined && 'after' in scope) q = q.where('securities.id', '>', scope.after).where('securities.id', '<=', scope.through);
    for (const row of await q.execute()) {
      const delistedOn = since !== null && row.last !== null && row.last < since ? row.last : null;
      if (delistedOn === row.delisted_on) continue;
      await db.updateTable('securities').set({ delisted_on: delistedOn }).where('id', '=', row.id).execute();
      changed++;
    }
  }
  return changed;
}

/** Securities one read of a list of ids asks for (a bound parameter each). */
const STOCKS_PER_READ = 500;

/** Every market the store holds securities of. */
export async function storedMarkets(db: Kysely<DB>): Promise<string[]> {
  return (await db.selectFrom('securities').select('market').distinct().execute()).map((r) => r.market);
}
