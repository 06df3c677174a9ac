// Market data, the securities: what every other record names by security id. Written first in
// each part of a write (./market-data.ts), read as the universe's list.

import { sql, type Kysely, type Transaction } from 'kysely';
import type { FilerBasis, Market, ReferenceConversion, Security } from '../domain/model.js';
import type { StoredSecurity } from './market-types.js';
import { upsert, type RowRunner } from './queries.js';
import type { DB } from './schema.js';

/** The sector a source reports when it does not know one. */
export const UNCLASSIFIED = 'Unclassified';

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
