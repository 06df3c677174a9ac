// Versioned, forward-only migrations written with Kysely's schema builder so the same code
// runs on SQLite and PostgreSQL. Never edit a migration that has shipped; add the next one.
// A migration does the same thing forever: schema and plain SQL only, never today's code (no
// import of the store's forms or of src/domain; eslint.config.js enforces it). What is derived
// from the records (the bar packs, split events, TTM steps and report packs) is built by ./derived.ts at start.

import { Migrator, sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DB } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

// Amounts are doubles: every figure we keep (won amounts up to ~1e15, share counts) is an
// integer well inside 2^53, so it round-trips exactly, and US prices carry cents.
const money = 'double precision' as const;

/**
 * What the migrations' DDL says differently per engine, kept here and keyed by the engine's name
 * (the store's dialect, ./dialect.ts, is today's code, which a migration never calls: a shipped
 * migration must make the same schema forever, whatever the dialect later becomes).
 */
interface EngineDdl {
  /** Packed values (bar packs, TTM steps). */
  bytes: 'blob' | 'bytea';
  /** Surrogate integer keys. */
  surrogateKey(c: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** A table keyed by (security, date), stored as its key allows. */
  clustered<T extends string, C extends string>(t: CreateTableBuilder<T, C>): CreateTableBuilder<T, C>;
}

const DDL: Record<Engine, EngineDdl> = {
  sqlite: {
    bytes: 'blob',
    // The rowid alias.
    surrogateKey: (c) => c.primaryKey().autoIncrement(),
    // Stored in key order without a separate rowid b-tree, which halves the table's size and
    // makes one stock's history one contiguous range.
    clustered: (t) => t.modifyEnd(sql`without rowid`),
  },
  postgres: {
    bytes: 'bytea',
    // An identity column.
    surrogateKey: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
    clustered: (t) => t,
  },
};

export function migrationsFor(engine: Engine): Record<string, Migration> {
  const ddl = DDL[engine];
  const id = ddl.surrogateKey;
  const byKey = ddl.clustered;
  const bytes = ddl.bytes;
  return {
  '0001_market_data': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('securities')
        .addColumn('id', 'integer', id)
        .addColumn('market', 'varchar(2)', (c) => c.notNull())
        .addColumn('code', 'varchar(16)', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('exchange', 'text', (c) => c.notNull())
        .addColumn('sector', 'text', (c) => c.notNull())
        .addColumn('currency', 'varchar(3)', (c) => c.notNull())
        .addColumn('fiscal_year_end_month', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addUniqueConstraint('securities_market_code', ['market', 'code'])
        .execute();

      // Primary key (security, date): one stock's bars by date is a range scan of the key.
      await db.schema
        .createTable('bars')
        .addColumn('security_id', 'integer', (c) => c.notNull())
        .addColumn('date', 'varchar(10)', (c) => c.notNull())
        .addColumn('open', money, (c) => c.notNull())
        .addColumn('high', money, (c) => c.notNull())
        .addColumn('low', money, (c) => c.notNull())
        .addColumn('close', money, (c) => c.notNull())
        .addColumn('volume', money, (c) => c.notNull())
        .addColumn('traded_value', money, (c) => c.notNull())
        .addColumn('shares', money, (c) => c.notNull())
        .addColumn('market_cap', money, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('bars_pk', ['security_id', 'date'])
        .$call(byKey)
        .execute();
      // All stocks at a date (latest prices, a market's day).
      await createBarsDateIndex(db);

      await db.schema
        .createTable('reports')
        .addColumn('security_id', 'integer', (c) => c.notNull())
        .addColumn('fiscal_year', 'integer', (c) => c.notNull())
        .addColumn('fiscal_quarter', 'integer', (c) => c.notNull())
        .addColumn('consolidated', 'integer', (c) => c.notNull())
        .addColumn('disclosed_on', 'varchar(10)', (c) => c.notNull())
        .addColumn('period_end', 'varchar(10)', (c) => c.notNull())
        .addColumn('revenue', money)
        .addColumn('cost_of_sales', money)
        .addColumn('operating_income', money)
        .addColumn('net_income', money)
        .addColumn('operating_cash_flow', money)
        .addColumn('capex', money)
        .addColumn('interest_expense', money)
        .addColumn('total_assets', money)
        .addColumn('current_assets', money)
        .addColumn('total_liabilities', money)
        .addColumn('current_liabilities', money)
        .addColumn('equity', money)
        .addColumn('cash', money)
        .addColumn('debt', money)
        .addColumn('receivables', money)
        .addColumn('inventory', money)
        .addColumn('payables', money)
        .addColumn('shares', money)
        .addColumn('source', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('reports_pk', [
          'security_id',
          'fiscal_year',
          'fiscal_quarter',
          'consolidated',
          'disclosed_on',
        ])
        .execute();

      await db.schema
        .createTable('flows')
        .addColumn('security_id', 'integer', (c) => c.notNull())
        .addColumn('date', 'varchar(10)', (c) => c.notNull())
        .addColumn('foreign_net', money, (c) => c.notNull())
        .addColumn('institution_net', money, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('flows_pk', ['security_id', 'date'])
        .$call(byKey)
        .execute();
      await db.schema.createIndex('flows_date').on('flows').columns(['date', 'security_id']).execute();

      await db.schema
        .createTable('fx')
        .addColumn('date', 'varchar(10)', (c) => c.primaryKey())
        .addColumn('usd_krw', money, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('trade')
        .addColumn('month', 'varchar(7)', (c) => c.primaryKey())
        .addColumn('exports', money, (c) => c.notNull())
        .addColumn('imports', money, (c) => c.notNull())
        .addColumn('balance', money, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sector_exports')
        .addColumn('month', 'varchar(7)', (c) => c.notNull())
        .addColumn('sector', 'text', (c) => c.notNull())
        .addColumn('exports', money, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('sector_exports_pk', ['month', 'sector'])
        .execute();

      await db.schema
        .createTable('meta')
        .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002_keys_usage_refresh': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'integer', id)
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull().unique())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('revoked_at', 'varchar(32)')
        .addColumn('last_used_at', 'varchar(32)')
        .execute();

      await db.schema
        .createTable('usage')
        .addColumn('key_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_pk', ['key_id', 'day'])
        .execute();

      await db.schema
        .createTable('refresh_runs')
        .addColumn('id', 'integer', id)
        .addColumn('started_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('finished_at', 'varchar(32)')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
    },
  },
    '0003_refresh_claims': {
      async up(db: Kysely<unknown>) {
        // One row per refresh slot (e.g. an hour): the instance whose insert lands runs it.
        await db.schema
          .createTable('refresh_claims')
          .addColumn('slot', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('instance', 'text', (c) => c.notNull())
          .addColumn('claimed_at', 'varchar(32)', (c) => c.notNull())
          .execute();
      },
    },
    '0004_claim_leases': {
      async up(db: Kysely<unknown>) {
        // A claim dies with its holder: it names the holder's process (pid in a pid namespace
        // of one boot, `host`) and carries a lease the holder renews; `done` once its work
        // landed. Claims made before this migration have an ended lease (expires_at '').
        await db.schema.alterTable('refresh_claims').addColumn('host', 'varchar(200)', (c) => c.notNull().defaultTo('')).execute();
        await db.schema.alterTable('refresh_claims').addColumn('pid', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('refresh_claims').addColumn('expires_at', 'varchar(32)', (c) => c.notNull().defaultTo('')).execute();
        await db.schema.alterTable('refresh_claims').addColumn('done', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    '0005_security_name_en': {
      async up(db: Kysely<unknown>) {
        // A company's English name beside the name its exchange lists (Korean for KR). Null
        // until a source that knows it (OpenDART's company record) writes the security again.
        await db.schema.alterTable('securities').addColumn('name_en', 'text').execute();
      },
    },
    '0006_bar_packs': {
      async up(db: Kysely<unknown>) {
        // Each stock's bars of a year in one value, what the per-request history reads read
        // (src/store/bar-packs.ts). A rowid table (SQLite): a pack is ~15 KB, too large a row to
        // keep inside the key's b-tree. Built from the bars by the derived-forms step.
        await db.schema
          .createTable('bar_packs')
          .addColumn('security_id', 'integer', (c) => c.notNull())
          .addColumn('year', 'integer', (c) => c.notNull())
          .addColumn('data', bytes, (c) => c.notNull())
          .addPrimaryKeyConstraint('bar_packs_pk', ['security_id', 'year'])
          .execute();
        await markUnbuilt(db, 'bar_packs');
      },
    },
    '0007_ttm_steps': {
      async up(db: Kysely<unknown>) {
        // Each stock's TTM step function, what the valuation band reads (src/store/ttm-steps.ts),
        // derived from the filings by the derived-forms step.
        await db.schema
          .createTable('ttm_steps')
          .addColumn('security_id', 'integer', (c) => c.notNull().primaryKey())
          .addColumn('data', bytes, (c) => c.notNull())
          .execute();
        await markUnbuilt(db, 'ttm_steps');
      },
    },
    '0008_report_packs': {
      async up(db: Kysely<unknown>) {
        // Each stock's filings in one value, what the recompute reads (src/store/report-packs.ts),
        // packed from the filings by the derived-forms step.
        await db.schema
          .createTable('report_packs')
          .addColumn('security_id', 'integer', (c) => c.notNull().primaryKey())
          .addColumn('data', bytes, (c) => c.notNull())
          .execute();
        await markUnbuilt(db, 'report_packs');
      },
    },
    '0009_oauth': {
      async up(db: Kysely<unknown>) {
        // The OAuth authorization server's state (src/oauth/): clients, authorization codes and
        // tokens. Codes and tokens are kept as their SHA-256 only; a token acts as the API key
        // `key_id` and is refused once that key is revoked (the lookup joins api_keys).
        await db.schema
          .createTable('oauth_clients')
          .addColumn('client_id', 'varchar(2048)', (c) => c.primaryKey())
          .addColumn('kind', 'varchar(16)', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('redirect_uris', 'text', (c) => c.notNull())
          .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
          .addColumn('fetched_at', 'varchar(32)', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('oauth_codes')
          .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('client_id', 'varchar(2048)', (c) => c.notNull())
          .addColumn('key_id', 'integer', (c) => c.notNull())
          .addColumn('redirect_uri', 'text', (c) => c.notNull())
          .addColumn('code_challenge', 'varchar(128)', (c) => c.notNull())
          .addColumn('code_challenge_method', 'varchar(8)', (c) => c.notNull())
          .addColumn('resource', 'text', (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('oauth_tokens')
          .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('kind', 'varchar(8)', (c) => c.notNull())
          .addColumn('client_id', 'varchar(2048)', (c) => c.notNull())
          .addColumn('key_id', 'integer', (c) => c.notNull())
          .addColumn('resource', 'text', (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
          .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('oauth_tokens_key').on('oauth_tokens').columns(['key_id']).execute();
      },
    },
    '0010_bar_splits': {
      async up(db: Kysely<unknown>) {
        // Each stock's split events, found in its bars (src/store/bar-splits.ts): what the
        // recompute's price changes read instead of a year of bars a stock. Derived from the bars
        // by the derived-forms step.
        await db.schema
          .createTable('bar_splits')
          .addColumn('security_id', 'integer', (c) => c.notNull())
          .addColumn('date', 'varchar(10)', (c) => c.notNull())
          .addColumn('factor', money, (c) => c.notNull())
          .addPrimaryKeyConstraint('bar_splits_pk', ['security_id', 'date'])
          .$call(byKey)
          .execute();
        await markUnbuilt(db, 'bar_splits');
      },
    },
    '0011_oauth_grants': {
      async up(db: Kysely<unknown>) {
        // The OAuth server's grant bookkeeping: a client metadata document's cache expiry (its own
        // max-age, bounded); a code's first use and its replay (a replayed code revokes what was
        // issued from it, RFC 6749 section 4.1.2); a token's grant (the code it descends from) and
        // the access token issued beside a refresh token (ended when that refresh token rotates);
        // and the sign-in page's pending grant (the key checked at step one, keyed by the
        // SHA-256 of the page's CSRF token, so step two never carries the key in HTML).
        await db.schema.alterTable('oauth_clients').addColumn('expires_at', 'varchar(32)').execute();
        await db.schema.alterTable('oauth_codes').addColumn('used_at', 'varchar(32)').execute();
        await db.schema.alterTable('oauth_codes').addColumn('replayed_at', 'varchar(32)').execute();
        await db.schema.alterTable('oauth_tokens').addColumn('grant_id', 'varchar(64)').execute();
        await db.schema.alterTable('oauth_tokens').addColumn('sibling_hash', 'varchar(64)').execute();
        await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').columns(['grant_id']).execute();
        await db.schema.createIndex('oauth_tokens_client').on('oauth_tokens').columns(['client_id']).execute();
        await db.schema.createIndex('oauth_codes_client').on('oauth_codes').columns(['client_id']).execute();
        await db.schema
          .createTable('oauth_pending')
          .addColumn('session_hash', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('key_id', 'integer', (c) => c.notNull())
          .addColumn('client_id', 'varchar(2048)', (c) => c.notNull())
          .addColumn('request', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
          .execute();
      },
    },
    '0012_per_share_figures': {
      async up(db: Kysely<unknown>) {
        // A filing's per-share figures (src/domain/model.ts FinancialReport): basic EPS and the
        // dividend per share declared, both year to date; null where the filing carries none.
        // The report packs hold them from REPORT_PACK_FORMAT 2 (./report-packs.ts), which the
        // derived-forms step rebuilds at start.
        await db.schema.alterTable('reports').addColumn('basic_eps', money).execute();
        await db.schema.alterTable('reports').addColumn('dividend_per_share', money).execute();
      },
    },
    '0013_security_filer_basis': {
      async up(db: Kysely<unknown>) {
        // How a foreign private issuer's (20-F/40-F) filings were read: its annual form, the
        // currency of its statements and each filing's USD conversion rate, as JSON. Null for
        // every other security.
        await db.schema.alterTable('securities').addColumn('filer_basis', 'text').execute();
      },
    },
    '0014_security_delisted_on': {
      async up(db: Kysely<unknown>) {
        // The last trading day of a code that left its market's listing; null while listed. Derived
        // from the bars (./delistings.ts): the column starts empty and marked unbuilt, so the
        // derived-forms step fills it from the bars the store holds at the next open.
        await db.schema.alterTable('securities').addColumn('delisted_on', 'varchar(10)').execute();
        await markUnbuilt(db, 'delistings');
      },
    },
    '0015_reference_rates': {
      async up(db: Kysely<unknown>) {
        // The ECB's euro foreign exchange reference rates (src/sources/ecb): units of a currency
        // per 1 EUR, by publication day and currency, as published. What converts the figures of
        // foreign filers without a USD convenience translation (src/domain/reference-rates.ts).
        await db.schema
          .createTable('reference_rates')
          .addColumn('date', 'varchar(10)', (c) => c.notNull())
          .addColumn('currency', 'varchar(3)', (c) => c.notNull())
          .addColumn('per_eur', money, (c) => c.notNull())
          .addColumn('source', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('reference_rates_pk', ['currency', 'date'])
          .execute();
      },
    },
    '0016_security_listings': {
      async up(db: Kysely<unknown>) {
        // Each company's name, sector and exchange over time (src/domain/listings.ts): a version
        // holds from its day until the next one's. A store written before it starts with one
        // version a security, what `securities` holds, from the security's first bar (from
        // '0000-01-01' for one without bars): the store's knowledge of it starts there. A bar
        // seek per security on the bars' key.
        await db.schema
          .createTable('security_listings')
          .addColumn('security_id', 'integer', (c) => c.notNull())
          .addColumn('valid_from', 'varchar(10)', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('sector', 'text', (c) => c.notNull())
          .addColumn('exchange', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('security_listings_pk', ['security_id', 'valid_from'])
          .execute();
        await sql`insert into security_listings (security_id, valid_from, name, sector, exchange)
          select s.id, coalesce((select min(b.date) from bars b where b.security_id = s.id), '0000-01-01'), s.name, s.sector, s.exchange
          from securities s`.execute(db);
      },
    },
  };
}

export const migrationProvider = (engine: Engine): MigrationProvider => ({
  getMigrations: () => Promise.resolve(migrationsFor(engine)),
});

/**
 * Bars by date (all stocks at a date: latest prices, a market's day). Also rebuilt after a bulk
 * load (`writeDatasets` with `bulk`), which is faster than keeping it up to date row by row.
 */
export async function createBarsDateIndex(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('bars_date').on('bars').columns(['date', 'security_id']).execute();
}

/**
 * Records that a derived form's table was just created empty: `derived:<table>:format` = 0, none
 * built, so the derived-forms step (./derived.ts `formatKey`) builds it from the records at start.
 */
async function markUnbuilt(db: Kysely<unknown>, table: string): Promise<void> {
  const key = `derived:${table}:format`;
  await sql`insert into meta (key, value) values (${key}, '0') on conflict (key) do update set value = '0'`.execute(db);
}

/**
 * Applies every pending migration in order; a no-op when the schema is current.
 * `migrationTableSchema`: where Kysely's bookkeeping tables are (the dialect's, ./dialect.ts).
 */
export async function runMigrations(db: Kysely<DB>, engine: Engine, migrationTableSchema: string | undefined): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(engine), ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
