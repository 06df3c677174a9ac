// OpenDART's 재무정보 일괄다운로드 read from a folder: the quarterly ZIPs under their published
// names (`2025_1Q_BS_20250606175523.zip`), each holding tab-separated statements of every filer
// (docs/sources.md, "opendart bulk files"). Rows become the same StatementRows as the API's
// answers and go through the same mapping (`reportFromRows`), one period at a time: a period's
// BS, PL and CF ZIPs are read member by member, the rows the mapping reads are kept per company,
// and the period's reports and placements are yielded in batches.

import { isAscii } from 'node:buffer';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import type { FinancialReport, FiscalQuarter, Security } from '../../domain/model.js';
import { type BulkBatch, type BulkContext, BulkNothingRead, type BulkReader } from '../bulk.js';
import { addDays } from '../shared/parse.js';
import { byteLines } from '../shared/lines.js';
import { type ZipLimits, ZipReadError, zipMembers } from '../shared/zip-stream.js';
import { newestPerPeriod, parseDartBulkName, type DartBulkFile } from './bulk-list.js';
import { depositShareOf, isCheckedSection, isDepositsRow, isMappedRow, namedSectionOf, reportFromRows, sectionHeadOf, SOURCE_NAME, statementRow, type StatementRow } from './parse.js';
import { KSIC_SECTORS, LAYOUT_SECTORS, sectorForKsic, sectorOfLayout, UNCLASSIFIED } from './sectors.js';

/** What a knowledge date is looked up by: the company's stock code and the report's period. */
export interface KnowledgeKey {
  stockCode: string;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
}

export interface OpenDartBulkOptions {
  /** The folder holding the ZIPs; other files are ignored (and counted). */
  dir: string;
  /**
   * The date the report became public: OpenDART's filing list (list.json rcept_dt, see
   * `OpenDartSource.filingDates`). When it answers null (or is absent) the statutory deadline is
   * assumed and counted through `ctx.note`.
   */
  knowledgeDates?: (key: KnowledgeKey) => string | null;
  fromYear?: number;
  toYear?: number;
  limits?: ZipLimits;
  /** Reports per yielded batch (default 500). */
  batchSize?: number;
  /** Statement rows kept for one period (default DART_TEXT_LIMITS.maxRowsPerPeriod). */
  maxRowsPerPeriod?: number;
}

/**
 * A DART member is at most a few tens of MB (the largest seen: ~9 MB in CP949, reported larger
 * in UTF-8) and a quarterly ZIP holds ten or so; the caps refuse a corrupt or hostile archive
 * before it is inflated: 512 MiB a member, 1 GiB declared in all, 100 members.
 */
export const DART_BULK_LIMITS: ZipLimits = { maxMemberBytes: 512 * 1024 * 1024, maxTotalBytes: 1024 ** 3, maxMembers: 100 };

/**
 * Caps on what one member's text may hold (docs/security.md): a real line is under 1 KB and a
 * header 12 to 19 fields (43 in changes-in-equity rows, which are not read).
 */
export const DART_TEXT_LIMITS = {
  /** A longer line refuses the file (`line too long`) without holding more of it than this. */
  maxLineBytes: 64 * 1024,
  /** A header of more fields refuses the member (`header with too many fields`). */
  maxFields: 100,
  /**
   * Statement rows kept for one period (its BS, PL and CF files together), until its reports are
   * built; a file that would pass it is refused (`too many rows in a period`). Only rows the
   * mapping reads are kept: the real samples keep 8 income-statement rows a company (both
   * bases), so a period of about 2,700 KOSPI and KOSDAQ filers keeps on the order of 100,000
   * over BS, PL and CF. 500,000 rows peaked at ~540 MiB RSS for the whole import (docs/security.md).
   */
  maxRowsPerPeriod: 500_000,
};

/** Statements read: the CE (changes in equity) ZIP holds nothing the mapping reads. */
const READ_STATEMENTS = new Set(['BS', 'PL', 'CF']);

export const KNOWLEDGE_DATE_ASSUMED = 'knowledge date assumed at the statutory deadline (no filing-list entry)';

/**
 * Statutory filing deadlines (자본시장법 §159, §160): the annual report within 90 days of the
 * fiscal year end, half-year and quarterly reports within 45 days of the period end.
 */
export function statutoryDeadline(periodEnd: string, quarter: FiscalQuarter): string {
  return addDays(periodEnd, quarter === 4 ? 90 : 45);
}

/** The member name's facts: `{YYYY}_{report}_{NN}_{statement}[_{sector}][_연결]_{YYYYMMDD}.txt`. */
export interface BulkMember {
  sjDiv: 'BS' | 'IS' | 'CIS' | 'CF' | 'SCE';
  /** 일반 (no suffix), 금융기타, 보험, 은행 or 증권. */
  sector: string;
  consolidated: boolean;
  /** The vintage date the file was built from (the name's trailing date). */
  vintage: string;
}

const MEMBER = /^(\d{4})_(1분기보고서|반기보고서|3분기보고서|사업보고서)_(0[1-5])_([^_]+)(?:_(금융기타|보험|은행|증권))?(_연결)?_(\d{8})\.txt$/;
const SJ_OF_NUMBER: Readonly<Record<string, BulkMember['sjDiv']>> = { '01': 'BS', '02': 'IS', '03': 'CIS', '04': 'CF', '05': 'SCE' };

export function parseBulkMemberName(path: string): BulkMember | null {
  const name = path.split('/').at(-1) ?? '';
  const m = MEMBER.exec(name);
  const sjDiv = SJ_OF_NUMBER[m?.[3] ?? ''];
  if (!m || sjDiv === undefined) return null;
  const v = m[7] ?? '';
  return { sjDiv, sector: m[5] ?? '일반', consolidated: m[6] !== undefined, vintage: `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}` };
}

/**
 * A member's text: strict UTF-8 when it is (one repository's re-encoded copies are), else CP949
 * (DART's own bytes); null when CP949 too needs replacement characters.
 */
export function decodeBulkText(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'cp949');
    return text.includes('\uFFFD') ? null : text;
  }
}

/** 시장구분 -> exchange; 기타법인 (unlisted or KONEX) and anything else give none. */
const EXCHANGE_OF_MARKET: Readonly<Record<string, string>> = { 유가증권시장상장법인: 'KOSPI', 코스닥시장상장법인: 'KOSDAQ' };

/**
 * The sector of the files' three-digit KSIC code, or Unclassified where a finer code under it
 * maps elsewhere (`262` could be Displays `2621` or Electronic Components `26`): the store then
 * keeps the sector company.json's five-digit code gave.
 */
export function sectorOfBulkKsic(ksic: string): string {
  const code = ksic.trim();
  if (!/^\d{2,3}$/.test(code)) return UNCLASSIFIED;
  const sector = sectorForKsic(code);
  const finer = Object.entries(KSIC_SECTORS).some(([prefix, s]) => prefix.length > code.length && prefix.startsWith(code) && s !== sector);
  return finer ? UNCLASSIFIED : sector;
}

/** One company's rows for one period end, consolidated and separate apart. */
export interface CompanyPeriod {
  code: string;
  name: string;
  exchange: string;
  ksic: string;
  fiscalYearEndMonth: number;
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  /**
   * The financial statement layout the company files (the member name's 은행, 보험, 증권 or
   * 금융기타); absent for the general layout.
   */
  layout?: string;
  /** Whether any row (mapped or not) was filed consolidated / separate. */
  hasConsolidated: boolean;
  hasSeparate: boolean;
  consolidated: StatementRow[];
  separate: StatementRow[];
}

export interface Tally {
  skip(reason: string, example: string, count?: number): void;
  note(reason: string, count?: number): void;
}

/** The columns every layout has, by whitespace-free header name. */
const NEEDED = ['종목코드', '회사명', '시장구분', '업종', '결산월', '결산기준일', '보고서종류', '통화', '항목코드', '항목명'] as const;
/** The current period: `당기`, `당기 1분기말`, `당기1분기`, `당기 반기 3개월`, ... (whitespace removed). */
const CURRENT = /^당기(1분기|반기|3분기)?(말|3개월)?$/;
/** The year-to-date column of quarterly income statements: `당기 3분기 누적`. */
const CUMULATIVE = /^당기(1분기|반기|3분기)누적$/;
/**
 * Rows may be one or two fields shorter or longer than the header (the annual IS header has a
 * trailing empty name its rows lack; the 1Q BS header 16 fields, rows 15); more is a broken row.
 */
const COLUMN_TOLERANCE = 2;

const QUARTER_OF_REPORT: ReadonlyArray<[RegExp, FiscalQuarter]> = [
  [/1분기/, 1],
  [/반기/, 2],
  [/3분기/, 3],
  [/사업/, 4],
];

/**
 * The fiscal quarter of a row: from 보고서종류 (a company's old-year block after a fiscal-year
 * change still says 사업보고서 while 결산월 already names the new month), else from the months
 * between the period end and the fiscal year-end month.
 */
export function fiscalQuarterOf(reportKind: string, periodEnd: string, fyEndMonth: number): FiscalQuarter | null {
  for (const [re, q] of QUARTER_OF_REPORT) if (re.test(reportKind)) return q;
  const months = (Number(periodEnd.slice(5, 7)) - fyEndMonth + 12) % 12;
  if (months % 3 !== 0) return null;
  return (months === 0 ? 4 : months / 3) as FiscalQuarter;
}

/** The fiscal year is named by the calendar year in which it ends. */
export function fiscalYearOf(periodEnd: string, quarter: FiscalQuarter, fyEndMonth: number): number {
  const year = Number(periodEnd.slice(0, 4));
  if (quarter === 4) return year;
  return Number(periodEnd.slice(5, 7)) <= fyEndMonth ? year : year + 1;
}

/**
 * Reads one member's lines into `into` (keyed `code|periodEnd`), counting what it cannot take:
 * the first line is the header, each later one a row. Pure over its inputs; the caller decides
 * whether the file's rows are kept. `onRow` is called for each row kept (a caller's cap).
 */
export class BulkMemberReader {
  private header: string[] | null = null;
  private col: Record<(typeof NEEDED)[number], number> | null = null;
  private current = -1;
  private cumulative = -1;
  private refused = false;
  private readonly isIncome: boolean;
  private readonly counts = new Map<string, { example: string; keys: Set<string> }>();
  /** The company whose rows are being read and the section of its statement the last head opened. */
  private section: { key: string; kind: ReturnType<typeof sectionHeadOf> } = { key: '', kind: null };

  constructor(
    private readonly memberName: string,
    private readonly member: BulkMember,
    private readonly into: Map<string, CompanyPeriod>,
    private readonly tally: Tally,
    private readonly onRow: () => void = () => undefined,
  ) {
    this.isIncome = member.sjDiv === 'IS' || member.sjDiv === 'CIS';
  }

  /** Takes line `lineNo` (1-based); false once the member is refused (its layout is unknown): read no further. */
  line(text: string, lineNo: number): boolean {
    if (this.refused) return false;
    if (this.header === null) return this.takeHeader(text);
    this.row(text.replace(/\r$/, ''), lineNo);
    return true;
  }

  private takeHeader(text: string): boolean {
    const { memberName, tally } = this;
    const fields = text.split('\t', DART_TEXT_LIMITS.maxFields + 1);
    if (fields.length > DART_TEXT_LIMITS.maxFields) {
      tally.skip('header with too many fields', `${memberName}: more than ${DART_TEXT_LIMITS.maxFields}`);
      this.refused = true;
      return false;
    }
    const header = fields.map((h) => h.replace(/\s+/g, ''));
    const col = Object.fromEntries(NEEDED.map((n) => [n, header.indexOf(n)])) as Record<(typeof NEEDED)[number], number>;
    const missing = NEEDED.filter((n) => col[n] < 0);
    if (missing.length > 0) {
      tally.skip('unknown statement layout (a needed column is missing)', `${memberName}: ${missing.join(', ')}`);
      this.refused = true;
      return false;
    }
    this.current = header.findIndex((h) => CURRENT.test(h));
    this.cumulative = header.findIndex((h) => CUMULATIVE.test(h));
    if (this.current < 0) {
      tally.skip('unknown statement layout (no current-period column)', memberName);
      this.refused = true;
      return false;
    }
    this.header = header;
    this.col = col;
    return true;
  }

  private count(reason: string, example: string, key: string): void {
    const c = this.counts.get(reason) ?? { example, keys: new Set<string>() };
    c.keys.add(key);
    this.counts.set(reason, c);
  }

  private row(line: string, lineNo: number): void {
    const { memberName, member, into, current, cumulative, isIncome } = this;
    const header = this.header as string[];
    const col = this.col as Record<(typeof NEEDED)[number], number>;
    const count = this.count.bind(this);
    if (line === '') return;
    const cells = line.split('\t');
    const where = `${memberName} line ${lineNo}`;
    if (Math.abs(cells.length - header.length) > COLUMN_TOLERANCE) {
      count('row with a wrong column count', `${where}: ${cells.length} fields, header ${header.length}`, String(lineNo - 1));
      return;
    }
    const cell = (index: number): string => (cells[index] ?? '').trim();
    const name = cell(col.회사명);
    const code = cell(col.종목코드).replace(/^\[|\]$/g, '');
    if (code === '' || code === 'null') {
      count('unlisted filer ([null] stock code)', `${memberName}: ${name}`, name);
      return;
    }
    if (!/^\d{6}$/.test(code)) {
      count('row with a malformed stock code', where, code);
      return;
    }
    const exchange = EXCHANGE_OF_MARKET[cell(col.시장구분)];
    if (exchange === undefined) {
      count('filer not on KOSPI or KOSDAQ', `${memberName}: ${code} ${name} (${cell(col.시장구분)})`, code);
      return;
    }
    // The model keeps KR money in won (docs/sources.md); a few filers report in dollars.
    if (cell(col.통화) !== 'KRW') {
      count('statement in a currency other than KRW', `${memberName}: ${code} ${name} (${cell(col.통화)})`, `${code}|${cell(col.결산기준일)}`);
      return;
    }
    const periodEnd = cell(col.결산기준일);
    const fyEndMonth = Number(cell(col.결산월));
    if (!/^\d{4}-\d{2}-\d{2}$/.test(periodEnd) || !Number.isInteger(fyEndMonth) || fyEndMonth < 1 || fyEndMonth > 12) {
      count('row without a period end or fiscal year-end month', where, String(lineNo - 1));
      return;
    }
    const quarter = fiscalQuarterOf(cell(col.보고서종류), periodEnd, fyEndMonth);
    if (quarter === null) {
      count('period end is not a fiscal quarter end', `${memberName}: ${code} ${periodEnd}`, `${code}|${periodEnd}`);
      return;
    }
    if (isIncome && (quarter === 2 || quarter === 3) && cumulative < 0) {
      // One value column at H1/Q3 could be the quarter alone or the year to date; guessing would
      // put a three-month figure where the model keeps year-to-date ones.
      count('income statement without a year-to-date column (half-year or third quarter)', `${memberName}: ${code}`, `${code}|${periodEnd}`);
      return;
    }
    const key = `${code}|${periodEnd}`;
    let company = into.get(key);
    if (company === undefined) {
      company = {
        code,
        name,
        exchange,
        ksic: cell(col.업종),
        fiscalYearEndMonth: fyEndMonth,
        fiscalYear: fiscalYearOf(periodEnd, quarter, fyEndMonth),
        fiscalQuarter: quarter,
        periodEnd,
        hasConsolidated: false,
        hasSeparate: false,
        consolidated: [],
        separate: [],
      };
      into.set(key, company);
    }
    const row = statementRow({
      sjDiv: member.sjDiv,
      accountId: cell(col.항목코드),
      accountNm: cell(col.항목명),
      thstrmAmount: cell(current),
      thstrmAddAmount: cumulative >= 0 ? cell(cumulative) : null,
    });
    if (member.consolidated) company.hasConsolidated = true;
    else company.hasSeparate = true;
    if (LAYOUT_SECTORS[member.sector] !== undefined) company.layout = member.sector;
    // Rows come in statement order, each section's head before its lines: the lines of the
    // sections the absence rules check are kept with every head (`completeSections`, parse.ts),
    // and so is a filer's own line that names such a section, wherever it is (`namedSectionOf`).
    const head = sectionHeadOf(row);
    if (this.section.key !== key) this.section = { key, kind: null };
    if (head !== null) this.section.kind = head;
    const sectionRow = head !== null || ((isCheckedSection(this.section.kind) || isCheckedSection(namedSectionOf(row))) && row.thstrmAmount !== null);
    // A 금융기타 filer's customer deposits decide its sector (`sectorOfCompany`).
    if (isMappedRow(row) || sectionRow || (member.sector === '금융기타' && isDepositsRow(row))) {
      this.onRow();
      (member.consolidated ? company.consolidated : company.separate).push(row);
    }
  }

  /** Counts what the member's rows could not give (once its lines are read). */
  finish(): void {
    for (const [reason, c] of this.counts) this.tally.skip(reason, c.example, c.keys.size);
  }
}

/**
 * A company's sector from its rows: the layout it files decides for financial companies (a
 * 금융기타 filer funded mostly by customer deposits is a bank group, `sectorOfLayout`), else the
 * three-digit KSIC code (`sectorOfBulkKsic`).
 */
export function sectorOfCompany(c: Pick<CompanyPeriod, 'layout' | 'ksic'>, rows: readonly StatementRow[]): string {
  return (c.layout !== undefined ? sectorOfLayout(c.layout, depositShareOf(rows)) : null) ?? sectorOfBulkKsic(c.ksic);
}

/** A whole member's text read through BulkMemberReader. */
export function readBulkMember(memberName: string, member: BulkMember, text: string, into: Map<string, CompanyPeriod>, tally: Tally): void {
  const reader = new BulkMemberReader(memberName, member, into, tally);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (!reader.line(lines[i] ?? '', i + 1)) return;
  reader.finish();
}

/**
 * A member's lines decoded one at a time: strict UTF-8 when its first line with a non-ASCII byte
 * is (one repository's re-encoded copies are), else CP949 (DART's own bytes). Null for a line
 * the member's encoding cannot read (a CP949 line needing replacement characters, a UTF-8
 * member's line that is not).
 */
export class BulkLineDecoder {
  private encoding: 'utf8' | 'cp949' | null = null;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  decode(bytes: Buffer): string | null {
    if (this.encoding === null) {
      if (isAscii(bytes)) return bytes.toString('latin1');
      try {
        const text = this.utf8.decode(bytes);
        this.encoding = 'utf8';
        return text;
      } catch {
        this.encoding = 'cp949';
      }
    }
    if (this.encoding === 'utf8') {
      try {
        return this.utf8.decode(bytes);
      } catch {
        return null;
      }
    }
    const text = iconv.decode(bytes, 'cp949');
    return text.includes('\uFFFD') ? null : text;
  }
}

/** The period's reports and placements from its companies' rows: consolidated first, else separate (as the API path: CFS, then OFS). */
export function reportsOfPeriod(
  companies: Iterable<CompanyPeriod>,
  knowledgeDates: ((key: KnowledgeKey) => string | null) | undefined,
  tally: Tally,
): { reports: FinancialReport[]; securities: Map<string, Security> } {
  const reports: FinancialReport[] = [];
  const securities = new Map<string, Security>();
  const latest = new Map<string, string>();
  const periodsOf = new Map<string, number>();
  let assumed = 0;
  let unmapped = 0;
  for (const c of companies) {
    periodsOf.set(c.code, (periodsOf.get(c.code) ?? 0) + 1);
    const fsDiv = c.hasConsolidated ? 'CFS' : 'OFS';
    const rows = fsDiv === 'CFS' ? c.consolidated : c.separate;
    if ((latest.get(c.code) ?? '') < c.periodEnd) {
      latest.set(c.code, c.periodEnd);
      securities.set(c.code, {
        market: 'KR',
        code: c.code,
        name: c.name || c.code,
        nameEn: null,
        exchange: c.exchange,
        sector: sectorOfCompany(c, rows),
        currency: 'KRW',
        fiscalYearEndMonth: c.fiscalYearEndMonth,
        source: SOURCE_NAME,
      });
    }
    if (rows.length === 0) {
      unmapped += 1;
      continue;
    }
    const key: KnowledgeKey = { stockCode: c.code, fiscalYear: c.fiscalYear, fiscalQuarter: c.fiscalQuarter, periodEnd: c.periodEnd };
    let disclosedOn = knowledgeDates?.(key) ?? null;
    if (disclosedOn === null) {
      disclosedOn = statutoryDeadline(c.periodEnd, c.fiscalQuarter);
      assumed += 1;
    }
    reports.push(reportFromRows(rows, { code: c.code, fiscalYear: c.fiscalYear, fiscalQuarter: c.fiscalQuarter, periodEnd: c.periodEnd, fsDiv, disclosedOn }));
  }
  if (assumed > 0) tally.note(KNOWLEDGE_DATE_ASSUMED, assumed);
  if (unmapped > 0) tally.note('company-period without a row the mapping reads', unmapped);
  const twice = [...periodsOf.values()].filter((n) => n > 1).length;
  if (twice > 0) tally.note('company with two period ends in one period file (fiscal-year change): both kept', twice);
  return { reports, securities };
}

/** The ZIPs to read, grouped by period, and the folder's other files counted. */
async function planOf(options: OpenDartBulkOptions, tally: Tally): Promise<DartBulkFile[][]> {
  const names = await readdir(options.dir);
  const bulk: DartBulkFile[] = [];
  let other = 0;
  let outside = 0;
  let equity = 0;
  for (const name of names) {
    const file = parseDartBulkName(name);
    if (file === null) other += 1;
    else if ((options.fromYear !== undefined && file.year < options.fromYear) || (options.toYear !== undefined && file.year > options.toYear)) outside += 1;
    else if (!READ_STATEMENTS.has(file.statement)) equity += 1;
    else bulk.push(file);
  }
  const newest = newestPerPeriod(bulk);
  if (other > 0) tally.note('file in the folder that is not a DART bulk ZIP', other);
  if (outside > 0) tally.note('DART bulk ZIP outside the years asked for', outside);
  if (equity > 0) tally.note('changes-in-equity ZIP not read (no figure is taken from it)', equity);
  if (bulk.length > newest.length) tally.note('older build of a period ignored (a newer one is in the folder)', bulk.length - newest.length);
  const periods = new Map<string, DartBulkFile[]>();
  for (const f of newest) {
    const key = `${f.year}-${f.quarter}`;
    periods.set(key, [...(periods.get(key) ?? []), f]);
  }
  return [...periods.values()];
}

export class OpenDartBulkReader implements BulkReader {
  readonly source = SOURCE_NAME;

  private readonly maxRowsPerPeriod: number;

  constructor(private readonly options: OpenDartBulkOptions) {
    this.maxRowsPerPeriod = options.maxRowsPerPeriod ?? DART_TEXT_LIMITS.maxRowsPerPeriod;
  }

  async *read(ctx: BulkContext): AsyncIterable<BulkBatch> {
    const tally: Tally = {
      skip: (reason, example, count) => ctx.skip(reason, example, count),
      note: (reason, count) => ctx.note?.(reason, count),
    };
    const periods = await planOf(this.options, tally);
    const total = periods.reduce((n, p) => n + p.length, 0);
    let done = 0;
    let bytes = 0;
    ctx.progress({ phase: 'reading', unit: 'files', done, total, bytes });
    const batchSize = Math.max(1, this.options.batchSize ?? 500);
    let readable = 0;
    const refused = new Map<string, number>();
    for (const files of periods) {
      const companies = new Map<string, CompanyPeriod>();
      const budget = { rows: this.maxRowsPerPeriod };
      for (const file of files) {
        if (ctx.signal?.aborted) return;
        const read = await this.readFile(file, ctx, tally, budget, (n) => {
          bytes += n;
        });
        // A file that fails part-way costs only itself: none of its rows are kept.
        if (read.ok) {
          readable += 1;
          mergeInto(companies, read.rows);
        } else refused.set(read.reason, (refused.get(read.reason) ?? 0) + 1);
        done += 1;
        ctx.progress({ done, bytes, note: file.name });
      }
      // An aborted read yields no half period.
      if (ctx.signal?.aborted) return;
      const { reports, securities } = reportsOfPeriod(companies.values(), this.options.knowledgeDates, tally);
      for (let i = 0; i < reports.length; i += batchSize) {
        const chunk = reports.slice(i, i + batchSize);
        const placed = [...new Set(chunk.map((r) => r.code))].flatMap((code) => securities.get(code) ?? []);
        yield { data: { securities: placed, reports: chunk } };
      }
    }
    if (total > 0 && readable === 0) {
      // Nothing could be read: the import must not say it read the files (nor move the cursor).
      throw new BulkNothingRead(`none of the ${total} DART bulk files could be read (${[...refused].map(([r, n]) => `${r}: ${n}`).join('; ')})`);
    }
    ctx.progress({ phase: 'done', done, total, bytes, note: null });
  }

  private async readFile(
    file: DartBulkFile,
    ctx: BulkContext,
    tally: Tally,
    budget: { rows: number },
    addBytes: (n: number) => void,
  ): Promise<{ ok: true; rows: Map<string, CompanyPeriod> } | { ok: false; reason: string }> {
    const rows = new Map<string, CompanyPeriod>();
    // The period's budget is spent only by a file that is kept.
    let left = budget.rows;
    const onRow = (): void => {
      left -= 1;
      if (left < 0) throw new ZipReadError('too many rows in a period', `${file.name}: more than ${this.maxRowsPerPeriod} statement rows in its period`);
    };
    try {
      for await (const zipMember of zipMembers(join(this.options.dir, file.name), this.options.limits ?? DART_BULK_LIMITS)) {
        if (ctx.signal?.aborted) return { ok: false, reason: 'stopped' };
        const member = parseBulkMemberName(zipMember.name);
        if (member === null) {
          tally.skip('member with an unknown name', `${file.name}: ${zipMember.name}`);
          continue;
        }
        if (member.sjDiv === 'SCE') continue;
        const staged = new Map<string, CompanyPeriod>();
        const reader = new BulkMemberReader(zipMember.name, member, staged, tally, onRow);
        const decoder = new BulkLineDecoder();
        let lineNo = 0;
        let readable = true;
        const stream = await zipMember.open();
        try {
          read: for await (const batch of byteLines(stream, DART_TEXT_LIMITS.maxLineBytes, `${file.name}: ${zipMember.name}`)) {
            for (const bytes of batch) {
              lineNo += 1;
              addBytes(bytes.length + 1);
              const text = decoder.decode(bytes);
              if (text === null) {
                readable = false;
                break read;
              }
              if (!reader.line(text, lineNo)) break read;
            }
          }
        } catch (err) {
          if (err instanceof ZipReadError) throw err;
          // An inflate or size error from the member's stream.
          throw new ZipReadError('truncated or corrupt ZIP', `${zipMember.name}: ${(err as Error).message}`);
        } finally {
          stream.destroy();
        }
        if (!readable) {
          tally.skip('member in an unexpected encoding (neither UTF-8 nor CP949)', `${file.name}: ${zipMember.name}`);
          continue;
        }
        reader.finish();
        mergeInto(rows, staged);
      }
    } catch (err) {
      if (err instanceof ZipReadError) {
        tally.skip(err.reason, file.name);
        return { ok: false, reason: err.reason };
      }
      tally.skip('unreadable file', file.name);
      ctx.log.warn('opendart bulk: unreadable file', { file: file.name, error: err instanceof Error ? err.message : String(err) });
      return { ok: false, reason: 'unreadable file' };
    }
    budget.rows = left;
    return { ok: true, rows };
  }
}

/** Adds one file's companies to the period's (the same company's rows from BS, PL and CF meet here). */
function mergeInto(period: Map<string, CompanyPeriod>, file: Map<string, CompanyPeriod>): void {
  for (const [key, c] of file) {
    const held = period.get(key);
    if (held === undefined) {
      period.set(key, c);
      continue;
    }
    held.layout ??= c.layout;
    held.hasConsolidated ||= c.hasConsolidated;
    held.hasSeparate ||= c.hasSeparate;
    held.consolidated.push(...c.consolidated);
    held.separate.push(...c.separate);
  }
}
