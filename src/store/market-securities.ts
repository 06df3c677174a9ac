// Market data, the securities: what every other record names by security id. Written first in
// each part of a write (./market-data.ts), read as the universe's list.

import { sql, type Kysely, type Transaction } from 'kysely';
import { sameListing, UNCLASSIFIED, withFormerName, withListing, type Listing, type ListingVersion } from '../domain/listings.js';
import type { FilerBasis, FormerName, Market, ReferenceConversion, Security } from '../domain/model.js';
import type { StoredSecurity } from './market-types.js';
import { chunks, upsert, type RowRunner } from './queries.js';
import type { DB } from './schema.js';

export { UNCLASSIFIED };

export async function writeSecurities(trx: Transaction<DB>, rowRunner: RowRunner | undefined, securities: readonly Security[]): Promise<void> {
  await upsert(
    rowRunner,
    trx,
    'securities',
    ['market', 'code'],
    securities.map((s) => ({
      market: s.market,
      code: s.code,
      name: s.name,
      name_en: s.nameEn ?? null,
      exchange: s.exchange,
      sector: s.sector,
      currency: s.currency,
      fiscal_year_end_month: s.fiscalYearEndMonth,
      source: s.source,
      filer_basis: s.filerBasis ? JSON.stringify(s.filerBasis) : null,
    })),
    // A source that does not know a company's sector (FSC's price feed) must not erase the one
    // another source found (OpenDART's industry code).
    // Nor one without an English name (FSC, the filing list) the one OpenDART's company record gave.
    {
      sector: sql`case when excluded.sector = ${UNCLASSIFIED} then securities.sector else excluded.sector end`,
      name_en: sql`coalesce(excluded.name_en, securities.name_en)`,
    },
  );
}

/**
 * The dated listings of a write (src/domain/listings.ts): each written security's name, sector and
 * exchange as of `day` (null: a write without a day, which corrects the latest version), then the
 * former names the write dates. A version is added only where they differ from the version valid
 * that day; `securities` keeps what the latest version says (today's answers read it), so a write
 * dated before a later version changes the past only. Securities the store does not hold are left
 * out (`writeSecurities` placed every one the write brings). Answers how many former names it
 * could not place.
 */
export async function writeListings(
  trx: Transaction<DB>,
  ids: ReadonlyMap<string, number>,
  securities: readonly Security[],
  day: string | null,
  formerNames: readonly FormerName[],
): Promise<number> {
  let unplaced = 0;
  const touched = new Set<number>();
  for (const s of securities) {
    const id = ids.get(`${s.market}:${s.code}`);
    if (id !== undefined) touched.add(id);
  }
  for (const f of formerNames) {
    const id = ids.get(`${f.market}:${f.code}`);
    if (id === undefined) unplaced++;
    else touched.add(id);
  }
  if (touched.size === 0) return unplaced;
  const before = await listingsOf(trx, [...touched]);
  const after = new Map<number, readonly ListingVersion[]>();
  const versionsOf = (id: number): readonly ListingVersion[] => after.get(id) ?? before.get(id) ?? [];
  // What `writeSecurities` put in `securities` of a company new to the store: the write's own listing.
  const written = new Map<number, Listing>();
  for (const s of securities) {
    const id = ids.get(`${s.market}:${s.code}`);
    if (id === undefined) continue;
    const listing = { name: s.name, sector: s.sector, exchange: s.exchange };
    after.set(id, withListing(versionsOf(id), day, listing));
    written.set(id, listing);
  }
  for (const f of formerNames) {
    const id = ids.get(`${f.market}:${f.code}`);
    if (id !== undefined) after.set(id, withFormerName(versionsOf(id), f.name, f.from, f.until));
  }
  const inserts: { security_id: number; valid_from: string; name: string; sector: string; exchange: string }[] = [];
  for (const [id, versions] of after) {
    const old = before.get(id) ?? [];
    if (versions === old) continue;
    if (old.length === versions.length && old.every((v, i) => v.validFrom === (versions[i] as ListingVersion).validFrom && sameListing(v, versions[i] as ListingVersion))) continue;
    // A change of a known company's versions is rare (a rename, a move, a sector learned): all of
    // them are written again. A new company's are inserted with the others'.
    if (old.length > 0) await trx.deleteFrom('security_listings').where('security_id', '=', id).execute();
    for (const v of versions) inserts.push({ security_id: id, valid_from: v.validFrom, name: v.name, sector: v.sector, exchange: v.exchange });
    const latest = versions[versions.length - 1] as ListingVersion;
    const wrote = written.get(id);
    if (old.length > 0 || wrote === undefined || !sameListing(wrote, latest)) {
      await trx.updateTable('securities').set({ name: latest.name, sector: latest.sector, exchange: latest.exchange }).where('id', '=', id).execute();
    }
  }
  for (const part of chunks(inserts)) await trx.insertInto('security_listings').values(part).execute();
  return unplaced;
}

/** The listing versions of `ids` by security id, each ascending by day. */
async function listingsOf(db: Kysely<DB>, ids: readonly number[]): Promise<Map<number, ListingVersion[]>> {
  const out = new Map<number, ListingVersion[]>();
  for (const part of chunks(ids)) {
    const rows = await db.selectFrom('security_listings').selectAll().where('security_id', 'in', part).orderBy('security_id').orderBy('valid_from').execute();
    for (const r of rows) {
      let list = out.get(r.security_id);
      if (list === undefined) out.set(r.security_id, (list = []));
      list.push({ validFrom: r.valid_from, name: r.name, sector: r.sector, exchange: r.exchange });
    }
  }
  return out;
}

/** Every security's listing versions by security id, each ascending by day (a small table: about one a security). */
export async function listingVersions(db: Kysely<DB>): Promise<Map<number, ListingVersion[]>> {
  const rows = await db.selectFrom('security_listings').selectAll().orderBy('security_id').orderBy('valid_from').execute();
  const out = new Map<number, ListingVersion[]>();
  for (const r of rows) {
    let list = out.get(r.security_id);
    if (list === undefined) out.set(r.security_id, (list = []));
    list.push({ validFrom: r.valid_from, name: r.name, sector: r.sector, exchange: r.exchange });
  }
  return out;
}

/** Every stored security's id by `market:code`. */
export async function securityIds(db: Kysely<DB>): Promise<Map<string, number>> {
  const rows = await db.selectFrom('securities').select(['id', 'market', 'code']).execute();
  return new Map(rows.map((r) => [`${r.market}:${r.code}`, r.id]));
}

export async function hasMarketData(db: Kysely<DB>): Promise<boolean> {
  const row = await db.selectFrom('securities').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function securities(db: Kysely<DB>): Promise<StoredSecurity[]> {
  const rows = await db.selectFrom('securities').selectAll().orderBy('market').orderBy('code').execute();
  return rows.map((r) => ({
    id: r.id,
    market: r.market as Market,
    code: r.code,
    name: r.name,
    ...(r.name_en !== null ? { nameEn: r.name_en } : {}),
    exchange: r.exchange,
    sector: r.sector,
    currency: r.currency === 'KRW' ? 'KRW' : 'USD',
    fiscalYearEndMonth: r.fiscal_year_end_month,
    source: r.source,
    ...(r.filer_basis !== null ? { filerBasis: filerBasisOf(r.filer_basis) } : {}),
    ...(r.delisted_on !== null ? { delistedOn: r.delisted_on } : {}),
  }));
}

/** A stored FilerBasis (JSON the store wrote); null when it does not read as one. */
export function filerBasisOf(text: string): FilerBasis | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const rates = Array.isArray(o['usdRates']) ? o['usdRates'] : null;
  if (typeof o['annualForm'] !== 'string' || typeof o['reportingCurrency'] !== 'string' || rates === null) return null;
  const usdRates: FilerBasis['usdRates'] = [];
  for (const r of rates as unknown[]) {
    if (typeof r !== 'object' || r === null) return null;
    const { disclosedOn, usdPerUnit, reference } = r as Record<string, unknown>;
    if (typeof disclosedOn !== 'string' || typeof usdPerUnit !== 'number' || !(usdPerUnit > 0)) return null;
    if (reference === undefined) {
      usdRates.push({ disclosedOn, usdPerUnit });
      continue;
    }
    const ref = referenceOf(reference);
    if (ref === null) return null;
    usdRates.push({ disclosedOn, usdPerUnit, reference: ref });
  }
  return { annualForm: o['annualForm'], reportingCurrency: o['reportingCurrency'], usdRates };
}

/** A stored ReferenceConversion; null when it does not read as one. */
function referenceOf(v: unknown): ReferenceConversion | null {
  if (typeof v !== 'object' || v === null) return null;
  const { from, to, days, balanceUsdPerUnit, balanceOn } = v as Record<string, unknown>;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof balanceOn !== 'string') return null;
  if (typeof days !== 'number' || !(days > 0) || typeof balanceUsdPerUnit !== 'number' || !(balanceUsdPerUnit > 0)) return null;
  return { from, to, days, balanceUsdPerUnit, balanceOn };
}

/** Securities by id, made once per list: the recompute passes one list with every slice of its reads. */
const securitiesById = new WeakMap<readonly StoredSecurity[], Map<number, StoredSecurity>>();
export function byId(list: readonly StoredSecurity[]): Map<number, StoredSecurity> {
  let map = securitiesById.get(list);
  if (map === undefined) {
    map = new Map(list.map((sec) => [sec.id, sec]));
    securitiesById.set(list, map);
  }
  return map;
}
