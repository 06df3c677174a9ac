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
    let q = db
      .selectFrom('bars')
      .innerJoin('securities', 'securities.id', 'bars.security_id')
      .where('securities.market', '=', market)
      .select((eb) => eb.fn.max('bars.date').as('date'));
    if (before !== null) q = q.where('bars.date', '<', before);
    const row = await q.executeTakeFirst();
    const date = (row?.date as string | null | undefined) ?? null;
    if (date === null) return null;
    before = date;
  }
  return before;
}

/**
 * Sets `delisted_on` of the securities of `markets` (with ids in (`after`, `through`] when given)
 * from their bars and their market's sessions (see the top of this file). Answers how many
 * securities it changed.
 */
export async function deriveDelistings(db: Kysely<DB>, markets: Iterable<string>, range?: { after: number; through: number }): Promise<number> {
  let changed = 0;
  for (const market of new Set(markets)) {
    const since = await listedSince(db, market);
    let q = db
      .selectFrom('securities')
      .where('securities.market', '=', market)
      .select(['securities.id', 'securities.delisted_on', sql<string | null>`(select max(bars.date) from bars where bars.security_id = securities.id)`.as('last')]);
    if (range) q = q.where('securities.id', '>', range.after).where('securities.id', '<=', range.through);
    for (const row of await q.execute()) {
      const delistedOn = since !== null && row.last !== null && row.last < since ? row.last : null;
      if (delistedOn === row.delisted_on) continue;
      await db.updateTable('securities').set({ delisted_on: delistedOn }).where('id', '=', row.id).execute();
      changed++;
    }
  }
  return changed;
}

/** Every market the store holds securities of. */
export async function storedMarkets(db: Kysely<DB>): Promise<string[]> {
  return (await db.selectFrom('securities').select('market').distinct().execute()).map((r) => r.market);
}
