// SEC's nightly bulk archives read member by member: submissions.zip for each listed company's
// placement (exchange, SIC code, fiscal year end), then companyfacts.zip for its
// statements. Each `CIK##########.json` member is byte for byte the data.sec.gov answer for that
// company, so it goes through the same combination as the API adapter (`secCompany`): a company
// read from the archive and from the API gives the same reports and the same Security.
//
// Memory: one member's JSON at a time (parsed as it is inflated, within SEC_JSON_LIMITS), plus one small placement record per listed company and
// the records of the batch being filled (`batchCompanies` companies). Members of companies not
// in the ticker list (most of the archives: every entity that ever filed) and submissions'
// overflow pages are passed over by name, never inflated.

import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FinancialReport, FormerName, Security } from '../../domain/model.js';
import type { UsdSeries } from '../../domain/reference-rates.js';
import type { BulkBatch, BulkContext, BulkReader } from '../bulk.js';
import { type JsonLimits, JsonStreamError, parseJsonStream } from '../shared/json-stream.js';
import { zipMembers, ZipReadError, type ZipLimits, type ZipMember } from '../shared/zip-stream.js';
import { companiesOf, parseSubmissions, secCompany, SOURCE_NAME, type SecPlacement, type TickerEntry } from './parse.js';

export const COMPANYFACTS_ZIP = 'companyfacts.zip';
export const SUBMISSIONS_ZIP = 'submissions.zip';

/** A member larger than this is skipped unless `limits.maxMemberBytes` says otherwise (the largest real members are tens of MB). */
export const DEFAULT_MAX_MEMBER_BYTES = 128 * 1024 * 1024;

/**
 * What one member's JSON may hold (docs/security.md), checked token by token as it is parsed:
 * nesting (`tooDeep`; a real member is 7 levels deep: facts, taxonomy, concept, units, unit,
 * list, entry), and objects and arrays, and values in all (`tooManyValues`). Real companyfacts
 * members take ~140 bytes of text an object or array and ~9 a value (Apple: 3,709,629 bytes,
 * 26,101 and 423,824), so a real member at the 128 MiB size cap would hold ~1 million and ~15
 * million; text made of nothing but empty objects or one-character strings holds far more for its
 * size, and built, costs tens of bytes each.
 */
export const SEC_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxContainers: 2_000_000, maxValues: 16_000_000 };

/**
 * Members passed over by design (most of each archive: every entity that ever filed, and the
 * older filings' pages), counted as notes, not as failures.
 */
export const SEC_BULK_NOTE = {
  unlistedFacts: 'companyfacts member of a CIK not in the ticker list',
  unlistedSubmissions: 'submissions member of a CIK not in the ticker list',
  overflowPage: 'submissions overflow page (older filings, not needed)',
} as const;

/** Why a member or a listed company could not be taken: stable reasons for the run's counters. */
export const SEC_BULK_SKIP = {
  unknownName: 'member with an unknown name',
  duplicate: 'second member of the same CIK',
  tooLarge: 'member past the size cap',
  corrupt: 'member that cannot be inflated',
  notJson: 'member that is not JSON',
  tooDeep: 'member nested deeper than the cap',
  tooManyValues: 'member with more values than the cap',
  noMember: 'listed company without a companyfacts member',
  /** A listed company whose submissions member could not be read is not placed (as the API adapter skips it). */
  placementUnreadable: 'listed company whose submissions member cannot be read',
} as const;

const COMPANY_MEMBER = /(?:^|\/)CIK(\d{10})\.json$/;
const OVERFLOW_MEMBER = /(?:^|\/)CIK\d{10}-submissions-\d+\.json$/;

export interface SecBulkOptions {
  /** Holds `companyfacts.zip` and, optionally, `submissions.zip`. */
  dir: string;
  /** company_tickers.json, parsed (SecSource.tickers). */
  tickers: readonly TickerEntry[];
  /** Limit the universe to these tickers (SEC_TICKERS), as the API adapter does. */
  onlyTickers?: readonly string[];
  /** `maxMemberBytes` skips a member past it (default DEFAULT_MAX_MEMBER_BYTES); `maxMembers` refuses the archive past it. */
  limits?: ZipLimits;
  /** Companies per batch (default 200). */
  batchCompanies?: number;
  /** The ECB's reference rates in USD by currency: foreign filers without a USD translation of their own are converted at them. */
  usdRates?: ReadonlyMap<string, UsdSeries>;
}

type MemberRead = { ok: true; body: unknown } | { ok: false; reason: string };

export class SecBulkReader implements BulkReader {
  readonly source = SOURCE_NAME;
  private readonly maxMemberBytes: number;
  private readonly batchCompanies: number;

  constructor(private readonly options: SecBulkOptions) {
    this.maxMemberBytes = options.limits?.maxMemberBytes ?? DEFAULT_MAX_MEMBER_BYTES;
    this.batchCompanies = Math.max(1, options.batchCompanies ?? 200);
  }

  async *read(ctx: BulkContext): AsyncGenerator<BulkBatch> {
    const companies = companiesOf(this.options.tickers, this.options.onlyTickers);
    const factsPath = join(this.options.dir, COMPANYFACTS_ZIP);
    if (!(await exists(factsPath))) throw new ZipReadError('missing archive', `${COMPANYFACTS_ZIP} is not in the folder`);
    const { placements, unplaceable } = await this.placements(ctx, companies);

    const total = companies.size;
    const seen = new Set<number>();
    let unlisted = 0;
    let bytes = 0;
    let reportCount = 0;
    let securities: Security[] = [];
    let reports: FinancialReport[] = [];
    let formerNames: FormerName[] = [];
    const take = (): BulkBatch => {
      const batch = { data: { securities, reports, formerNames } };
      reportCount += reports.length;
      securities = [];
      reports = [];
      formerNames = [];
      return batch;
    };
    ctx.progress({ phase: 'reading', unit: 'companies', done: 0, total, bytes: 0, note: COMPANYFACTS_ZIP });
    try {
      for await (const member of zipMembers(factsPath, { maxMembers: this.options.limits?.maxMembers })) {
        ctx.signal?.throwIfAborted();
        const match = COMPANY_MEMBER.exec(member.name);
        if (!match) {
          ctx.skip(SEC_BULK_SKIP.unknownName, member.name);
          continue;
        }
        const cik = Number(match[1]);
        const entry = companies.get(cik);
        if (!entry) {
          unlisted += 1;
          continue;
        }
        if (seen.has(cik)) {
          ctx.skip(SEC_BULK_SKIP.duplicate, member.name);
          continue;
        }
        seen.add(cik);
        if (unplaceable.has(cik)) {
          ctx.skip(SEC_BULK_SKIP.placementUnreadable, `${entry.ticker} (CIK ${cik})`);
          ctx.progress({ done: seen.size });
          continue;
        }
        const read = await this.readMember(member);
        bytes += read.ok ? member.size : 0;
        ctx.progress({ done: seen.size, bytes });
        if (!read.ok) {
          ctx.skip(read.reason, member.name);
          continue;
        }
        const company = secCompany(entry, read.body, placements.get(cik) ?? null, this.options.usdRates);
        if (company.kind === 'skipped') {
          ctx.skip(company.reason, `${entry.ticker} (CIK ${cik})`);
          continue;
        }
        for (const [reason, n] of Object.entries(company.skipped)) ctx.skip(reason, entry.ticker, n);
        securities.push(company.security);
        reports.push(...company.reports);
        formerNames.push(...company.formerNames);
        if (securities.length >= this.batchCompanies) yield take();
      }
    } catch (err) {
      // The archive broke part way (a corrupt central directory entry): what was read is kept,
      // the break is the caller's to count.
      if (err instanceof ZipReadError && securities.length > 0) yield take();
      throw err;
    }
    if (securities.length > 0) yield take();
    if (unlisted > 0) ctx.note?.(SEC_BULK_NOTE.unlistedFacts, unlisted);
    const missing = companies.size - seen.size;
    if (missing > 0) ctx.skip(SEC_BULK_SKIP.noMember, undefined, missing);
    ctx.progress({ phase: 'done', unit: 'companies', done: seen.size, total, bytes, note: null });
    ctx.log.info('sec: bulk archives read', { companies: seen.size, listed: total, reports: reportCount, unlistedMembers: unlisted });
  }

  /**
   * Placement of each listed company from submissions.zip (none when the archive is absent: then
   * the facts' fallbacks, as for a company whose submissions answer 404). A member of a listed
   * company that cannot be read makes the company unplaceable, as an unreadable submissions
   * answer skips it in the API adapter. A broken archive throws before anything is yielded:
   * reading on would place every company on the fallbacks.
   */
  private async placements(
    ctx: BulkContext,
    companies: ReadonlyMap<number, TickerEntry>,
  ): Promise<{ placements: Map<number, SecPlacement>; unplaceable: Set<number> }> {
    const placements = new Map<number, SecPlacement>();
    const unplaceable = new Set<number>();
    const path = join(this.options.dir, SUBMISSIONS_ZIP);
    if (!(await exists(path))) {
      ctx.log.info('sec: no submissions.zip; companies placed from their facts (exchange US, sector Unclassified)', {});
      return { placements, unplaceable };
    }
    let unlisted = 0;
    let overflow = 0;
    let done = 0;
    let bytes = 0;
    ctx.progress({ phase: 'reading', unit: 'members', done: 0, total: companies.size, bytes: 0, note: SUBMISSIONS_ZIP });
    for await (const member of zipMembers(path, { maxMembers: this.options.limits?.maxMembers })) {
      ctx.signal?.throwIfAborted();
      if (OVERFLOW_MEMBER.test(member.name)) {
        overflow += 1;
        continue;
      }
      const match = COMPANY_MEMBER.exec(member.name);
      if (!match) {
        ctx.skip(SEC_BULK_SKIP.unknownName, member.name);
        continue;
      }
      const cik = Number(match[1]);
      if (!companies.has(cik)) {
        unlisted += 1;
        continue;
      }
      if (placements.has(cik) || unplaceable.has(cik)) {
        ctx.skip(SEC_BULK_SKIP.duplicate, member.name);
        continue;
      }
      const read = await this.readMember(member);
      done += 1;
      bytes += read.ok ? member.size : 0;
      ctx.progress({ done, bytes });
      if (!read.ok) {
        ctx.skip(read.reason, member.name);
        unplaceable.add(cik);
        continue;
      }
      const placement = parseSubmissions(read.body);
      if (placement) placements.set(cik, placement);
    }
    if (overflow > 0) ctx.note?.(SEC_BULK_NOTE.overflowPage, overflow);
    if (unlisted > 0) ctx.note?.(SEC_BULK_NOTE.unlistedSubmissions, unlisted);
    return { placements, unplaceable };
  }

  /**
   * One member's JSON, parsed as it is inflated with the nesting cap, or why it cannot be had;
   * never throws for the member's own faults.
   */
  private async readMember(member: ZipMember): Promise<MemberRead> {
    if (member.size > this.maxMemberBytes) return { ok: false, reason: SEC_BULK_SKIP.tooLarge };
    let stream: Readable;
    try {
      stream = await member.open();
    } catch (err) {
      if (err instanceof ZipReadError) return { ok: false, reason: SEC_BULK_SKIP.corrupt };
      throw err;
    }
    try {
      return { ok: true, body: await parseJsonStream(stream, SEC_JSON_LIMITS) };
    } catch (err) {
      if (err instanceof JsonStreamError) {
        const reason = { 'too deep': SEC_BULK_SKIP.tooDeep, 'too many values': SEC_BULK_SKIP.tooManyValues, 'not JSON': SEC_BULK_SKIP.notJson }[err.reason];
        return { ok: false, reason };
      }
      // The member's stream failed: an inflate error, or bytes other than it declares.
      return { ok: false, reason: SEC_BULK_SKIP.corrupt };
    } finally {
      stream.destroy();
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
