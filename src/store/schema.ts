// Table types for Kysely: the one description of the database both engines share.
// Column names are snake_case in SQL; the store maps rows to the camelCase domain model.

import type { ColumnType, Generated } from 'kysely';

export interface SecuritiesTable {
  id: Generated<number>;
  market: string;
  code: string;
  name: string;
  /** English name; null when no source gave one (migration 0005). */
  name_en: ColumnType<string | null, string | null | undefined, string | null>;
  exchange: string;
  sector: string;
  currency: string;
  fiscal_year_end_month: number;
  source: string;
  /** A foreign private issuer's FilerBasis as JSON; null for every other security (migration 0013). */
  filer_basis: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last trading day of a code that left its market's listing; null while listed (migration 0014, ./delistings.ts). */
  delisted_on: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A company's name, sector and exchange from `valid_from` until its next version's (migration 0016, src/domain/listings.ts). */
export interface SecurityListingsTable {
  security_id: number;
  valid_from: string;
  name: string;
  sector: string;
  exchange: string;
}

export interface BarsTable {
  security_id: number;
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  traded_value: number;
  shares: number;
  market_cap: number;
  source: string;
}

/** One stock's bars of a calendar year, packed (src/store/bar-packs.ts; migration 0006). */
export interface BarPacksTable {
  security_id: number;
  year: number;
  data: Uint8Array;
}

/** One stock's TTM step function, derived from all of its filings (src/store/ttm-steps.ts; migration 0007). */
export interface ReportPacksTable {
  security_id: number;
  data: Uint8Array;
}

/** A split found between two consecutive bars of a stock, dated on the later one (src/store/bar-splits.ts; migration 0010). */
export interface BarSplitsTable {
  security_id: number;
  date: string;
  /** n of an n-for-1 split, 1/n of a reverse one (src/domain/price-change.ts `splitFactorBetween`). */
  factor: number;
}

export interface TtmStepsTable {
  security_id: number;
  data: Uint8Array;
}

export interface ReportsTable {
  security_id: number;
  fiscal_year: number;
  fiscal_quarter: number;
  consolidated: number;
  disclosed_on: string;
  period_end: string;
  revenue: number | null;
  cost_of_sales: number | null;
  operating_income: number | null;
  net_income: number | null;
  operating_cash_flow: number | null;
  capex: number | null;
  interest_expense: number | null;
  basic_eps: number | null;
  dividend_per_share: number | null;
  total_assets: number | null;
  current_assets: number | null;
  total_liabilities: number | null;
  current_liabilities: number | null;
  equity: number | null;
  cash: number | null;
  debt: number | null;
  receivables: number | null;
  inventory: number | null;
  payables: number | null;
  shares: number | null;
  source: string;
}

export interface FlowsTable {
  security_id: number;
  date: string;
  foreign_net: number;
  institution_net: number;
  source: string;
}

export interface FxTable {
  date: string;
  usd_krw: number;
  source: string;
}

export interface ReferenceRatesTable {
  date: string;
  currency: string;
  per_eur: number;
  source: string;
}

export interface TradeTable {
  month: string;
  exports: number;
  imports: number;
  balance: number;
  source: string;
}

export interface SectorExportsTable {
  month: string;
  sector: string;
  exports: number;
  source: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  /** The readable start of the key (`sk_live_ab12cd34`), unique; never the secret part. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  name: string;
  plan: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface UsageTable {
  key_id: number;
  /** Calendar day in Asia/Seoul, `YYYY-MM-DD`. */
  day: string;
  calls: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface RefreshRunsTable {
  id: Generated<number>;
  started_at: string;
  finished_at: string | null;
  status: string;
  detail: string;
}

export interface RefreshClaimsTable {
  slot: string;
  instance: string;
  claimed_at: string;
  /** Where the holder's pid means something: boot id and pid namespace (see refresh/claims.ts). */
  host: ColumnType<string, string | undefined, string>;
  pid: ColumnType<number, number | undefined, number>;
  /** The holder's lease ends then unless renewed (ISO 8601, UTC). */
  expires_at: ColumnType<string, string | undefined, string>;
  /** 1 once the claimed work landed: never taken over. */
  done: ColumnType<number, number | undefined, number>;
}

/** A client of the OAuth authorization server (src/oauth/): registered (RFC 7591) or a metadata document's URL. */
export interface OAuthClientsTable {
  client_id: string;
  /** `registered` (dynamic registration) or `document` (a client ID metadata document, fetched). */
  kind: string;
  name: string;
  /** JSON array of the redirect URIs. */
  redirect_uris: string;
  created_at: string;
  /** When a metadata document was last fetched; equals created_at for a registered client. */
  fetched_at: string;
  /** A metadata document is fetched again after this (its max-age, bounded); null for a registered client. */
  expires_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An authorization code, by its SHA-256 (hex): the code itself is never stored. */
export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  key_id: number;
  redirect_uri: string;
  code_challenge: string;
  code_challenge_method: string;
  resource: string;
  scope: string;
  expires_at: string;
  /** The code's exchange (a code is used once); null until then. */
  used_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** When a spent code was presented again (its tokens are then revoked). */
  replayed_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An access or refresh token, by its SHA-256 (hex); it acts as the key `key_id`. */
export interface OAuthTokensTable {
  token_hash: string;
  /** `access` or `refresh`. */
  kind: string;
  client_id: string;
  key_id: number;
  resource: string;
  scope: string;
  expires_at: string;
  created_at: string;
  /** The SHA-256 of the code this token descends from (through any refreshes); revoked together. */
  grant_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A refresh token's: the access token issued beside it, ended when the refresh token rotates. */
  sibling_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The sign-in page's grant between its two steps: the key checked at step one, by the CSRF token's SHA-256. */
export interface OAuthPendingTable {
  session_hash: string;
  key_id: number;
  client_id: string;
  /** JSON: the authorization request's parameters as checked at step one. */
  request: string;
  expires_at: string;
}

export interface DB {
  securities: SecuritiesTable;
  security_listings: SecurityListingsTable;
  bars: BarsTable;
  bar_packs: BarPacksTable;
  bar_splits: BarSplitsTable;
  reports: ReportsTable;
  ttm_steps: TtmStepsTable;
  report_packs: ReportPacksTable;
  flows: FlowsTable;
  fx: FxTable;
  reference_rates: ReferenceRatesTable;
  trade: TradeTable;
  sector_exports: SectorExportsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  meta: MetaTable;
  refresh_runs: RefreshRunsTable;
  refresh_claims: RefreshClaimsTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  oauth_pending: OAuthPendingTable;
}
