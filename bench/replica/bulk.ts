// The replica's bulk files, generated once into a cache directory and served from disk:
// - OpenDART's 재무정보 일괄다운로드: the list page (download_ext002 links) and one ZIP per
//   quarter and statement (BS, PL, CF, CE) from 2015 annual and every quarter since 2016 up to
//   the latest period filed, member names in CP949 without the UTF-8 flag, tab-separated CP949
//   text in the layouts of FORMATS.md section 1. Rows are the REAL sample rows of
//   ../shared/realdata/bulk/opendart re-keyed to the replica's companies (one real company's
//   block per copy: 종목코드, 회사명, 시장구분, 결산기준일, 보고서종류 rewritten). Financial-sector
//   copies (one in 25) are in their sector's members (은행, 보험, 증권, 금융기타) only, with the
//   real rows of the 2025 first quarter's sector files (bench/replica/financial.ts): balances as
//   recorded, income and cash flows the recorded quarter's times the quarters to date (the
//   half-year and third-quarter income statements in the quarterly layout, `quarterlyIncomeHeader`).
// - SEC's nightly companyfacts.zip and submissions.zip: one CIK##########.json member per copy,
//   byte for byte the API answer of bench/replica/api.ts. A companyfacts member is deflated as
//   two pieces: the copy's own head (cik, entityName; a sync-flushed, non-final deflate block)
//   followed by its template's facts, deflated once per template and reused for every copy.

import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { factsHead, SecApi, type Answer } from './api.js';
import { financialRows, financialSample, scaledAmount } from './financial.js';
import { epochDay, isoOfDay, type FinancialSector, type KrCompany, type Universe } from './universe.js';

const REALDATA = process.env.REALDATA_DIR ?? '/work/shared/realdata';
const DART_SAMPLES = join(REALDATA, 'bulk', 'opendart');

export interface BulkFiles {
  dartListPage(): Answer;
  dartZip(name: string): { file: string; type: string } | null;
  secArchive(kind: 'companyfacts' | 'submissions'): { file: string; type: string } | null;
  /** What was generated (or found in the cache) and how long it took. */
  summary: BulkSummary;
}

export interface BulkSummary {
  dir: string;
  cached: boolean;
  generationMs: number;
  dartZips: number;
  dartBytes: number;
  companyfactsBytes: number;
  submissionsBytes: number;
}

// ---------------------------------------------------------------------------------------
// A small ZIP writer (stored sizes < 4 GiB; no ZIP64): members arrive already deflated.

interface Member {
  name: Buffer;
  utf8: boolean;
  crc: number;
  size: number;
  deflated: Buffer[];
}

class ZipWriter {
  private readonly fd: number;
  private offset = 0;
  private readonly central: Buffer[] = [];
  private count = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  private write(b: Buffer): void {
    writeSync(this.fd, b);
    this.offset += b.length;
  }

  add(m: Member): void {
    const csize = m.deflated.reduce((n, b) => n + b.length, 0);
    if (this.offset + csize > 0xffff_fff0) throw new Error(`${this.path}: over 4 GiB (this writer has no ZIP64)`);
    // The fields a local header and its central directory entry share, in the same order
    // (APPNOTE 4.3.7 and 4.3.12): flags (bit 11: UTF-8 name), method 8 (deflate), DOS time
    // and date (12:00, 2025-11-25), CRC-32, compressed and uncompressed size, name length.
    const shared = (b: Buffer, at: number): void => {
      b.writeUInt16LE(m.utf8 ? 0x0800 : 0, at);
      b.writeUInt16LE(8, at + 2);
      b.writeUInt16LE(0x6000, at + 4);
      b.writeUInt16LE(0x5b79, at + 6);
      b.writeUInt32LE(m.crc >>> 0, at + 8);
      b.writeUInt32LE(csize, at + 12);
      b.writeUInt32LE(m.size, at + 16);
      b.writeUInt16LE(m.name.length, at + 20);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    shared(local, 6);
    const at = this.offset;
    this.write(local);
    this.write(m.name);
    for (const b of m.deflated) this.write(b);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4); // version made by
    c.writeUInt16LE(20, 6); // version needed
    shared(c, 8);
    c.writeUInt32LE(at, 42);
    this.central.push(c, m.name);
    this.count++;
  }

  close(): number {
    const start = this.offset;
    for (const b of this.central) this.write(b);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.count, 8);
    end.writeUInt16LE(this.count, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.write(end);
    closeSync(this.fd);
    return this.offset;
  }
}

const wholeMember = (name: Buffer, utf8: boolean, data: Buffer): Member => ({ name, utf8, crc: crc32(data), size: data.length, deflated: [deflateRawSync(data)] });

// ---------------------------------------------------------------------------------------
// OpenDART quarterly files

type Statement = 'BS' | 'PL' | 'CF' | 'CE';
type Report = 1 | 2 | 3 | 4;
const REPORT_NAME: Record<Report, string> = { 1: '1분기보고서', 2: '반기보고서', 3: '3분기보고서', 4: '사업보고서' };
const LIST_CODE: Record<Report, string> = { 1: 'FQ', 2: 'HY', 3: 'TQ', 4: 'FY' };
const PERIOD_END: Record<Report, string> = { 1: '03-31', 2: '06-30', 3: '09-30', 4: '12-31' };
/** The day the last filings of a period are in (the deadlines of bench/replica/api.ts). */
const PERIOD_DONE: Record<Report, (y: number) => string> = { 1: (y) => `${y}-05-15`, 2: (y) => `${y}-08-14`, 3: (y) => `${y}-11-14`, 4: (y) => `${y + 1}-03-31` };
const SECTORS = ['', '금융기타', '보험', '은행', '증권'] as const;

interface SampleBlocks {
  header: string;
  /** Rows of one real company per block (the columns after 회사명... kept as recorded). */
  blocks: string[][][];
}

function readSample(file: string): string {
  const raw = gunzipSync(readFileSync(join(DART_SAMPLES, file)));
  return file.includes('utf8') ? raw.toString('utf8') : iconv.decode(raw, 'cp949');
}

function blocksOf(text: string): SampleBlocks {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines[0] as string;
  const by = new Map<string, string[][]>();
  for (const line of lines.slice(1)) {
    const cells = line.replace(/\r$/, '').split('\t');
    const key = `${cells[1]}|${cells[7]}`;
    let b = by.get(key);
    if (!b) by.set(key, (b = []));
    b.push(cells);
  }
  return { header, blocks: [...by.values()].filter((b) => b.length >= 5) };
}

/** The real samples each member is made from (see the file comment); `relabel` for the layouts not recorded. */
function sampleFor(statement: Statement, member: '01' | '02' | '03' | '04' | '05', report: Report, consolidated: boolean, cache: Map<string, SampleBlocks>): { sample: SampleBlocks; kind: string } {
  const c = consolidated ? '_연결' : '';
  let file: string;
  if (member === '02' || member === '03') {
    file = {
      1: `2016_1분기보고서_02_손익계산서${c}_20210317.txt.gz`,
      2: `2019_반기보고서_02_손익계산서${c}_20210317.txt.gz`,
      3: `2019_3분기보고서_02_손익계산서${c}_20201209.txt.gz`,
      4: `2015_사업보고서_02_손익계산서${c}_20210318.txt.gz`,
    }[report];
  } else {
    file = { BS: '2025_1분기보고서_01_재무상태표_20250606.EXCERPT-head-utf8.txt.gz', CF: '2025_1분기보고서_04_현금흐름표_20250606.EXCERPT-head-utf8.txt.gz', CE: '2025_1분기보고서_05_자본변동표_20250606.EXCERPT-head-utf8.txt.gz', PL: '' }[statement];
  }
  let sample = cache.get(file);
  if (!sample) cache.set(file, (sample = blocksOf(readSample(file))));
  // CONSTRUCTED labels where no real file of the layout is at hand: 03 포괄손익계산서 from 02 rows,
  // 연결 BS/CF/CE from the 별도 excerpt, the 반기/3분기/사업 headers of BS/CF from the 1Q header.
  const kind = member === '03' ? 'relabelled 02 rows' : member === '02' ? 'real rows' : consolidated ? 'relabelled 별도 rows' : report === 1 ? 'real rows' : 'real rows, header of the report type';
  return { sample, kind };
}

function headerFor(header: string, member: string, report: Report): string {
  if (member === '02' || member === '03' || report === 1) return header;
  const word = report === 2 ? '반기' : report === 3 ? '3분기' : '';
  return header.replace(/당기 ?1분기(말)?/g, (_m, end: string | undefined) => (word === '' ? '당기' : `당기 ${word}${end ?? ''}`)).replace(/전기1분기/g, word === '' ? '전기' : `전기${word}`);
}

/**
 * CONSTRUCTED: the half-year and third-quarter income statement (03) of a financial sector. No
 * real non-Q1 financial-sector file is at hand (../shared/realdata/bulk holds 2025 Q1's; the
 * repository it came from, Q1 only), and the Q1 files' layout, the balance sheet's header with
 * one value per row, cannot say whether a half-year value is the three months or the year to
 * date: the reader refuses such an income statement rather than guess. These members are written
 * in the layout FORMATS.md documents for the quarterly income statements (02, and 03 "as IS"):
 * the twelve common columns, then `당기 {반기|3분기} 3개월`, `당기 … 누적`, `전기 … 3개월`,
 * `전기 … 누적`, `전기`, `전전기`; the recorded quarter's amount as the three months, times the
 * quarters to date as the year to date, the prior periods left empty.
 */
function quarterlyIncomeHeader(financialHeader: string, report: 2 | 3): string {
  const word = report === 2 ? '반기' : '3분기';
  return [...financialHeader.split('\t').slice(0, 12), `당기 ${word} 3개월`, `당기 ${word} 누적`, `전기 ${word} 3개월`, `전기 ${word} 누적`, '전기', '전전기'].join('\t');
}

function dartMember(universe: Universe, year: number, report: Report, statement: Statement, member: '01' | '02' | '03' | '04' | '05', label: string, sector: string, consolidated: boolean, vintage: string, cache: Map<string, SampleBlocks>): Member {
  const rname = REPORT_NAME[report];
  const name = `${year}_${rname}_${member}_${label}${sector ? `_${sector}` : ''}${consolidated ? '_연결' : ''}_${vintage}.txt`;
  const end = `${year}-${PERIOD_END[report]}`;
  if (sector !== '') {
    // A financial sector's member: the sector's copies, the balance sheet's header for every
    // statement (as the recorded 2025 Q1 files), except the half-year and third-quarter income
    // statements (`quarterlyIncome`).
    const fin = member as '01' | '03' | '04' | '05';
    const sample = financialSample(sector as FinancialSector, fin, consolidated);
    const quarterly = fin === '03' && (report === 2 || report === 3);
    const lines: string[] = [quarterly ? quarterlyIncomeHeader(sample.header, report) : headerFor(sample.header, '01', report)];
    for (const co of universe.kr) {
      if (co.financial !== sector || (consolidated && co.separateOnly)) continue;
      for (const cells of financialRows(co, fin, consolidated)) {
        let row = [...cells];
        row[1] = `[${co.stockCode}]`;
        row[2] = co.name;
        row[3] = marketName(co);
        row[7] = end;
        row[8] = rname;
        if (quarterly) row = [...row.slice(0, 12), row[12] ?? '', scaledAmount(row[12] ?? '', report), '', '', '', ''];
        else if (fin === '03' || fin === '04') row[12] = scaledAmount(row[12] ?? '', report);
        lines.push(row.join('\t'));
      }
    }
    return wholeMember(iconv.encode(name, 'cp949'), false, iconv.encode(`${lines.join('\n')}\n`, 'cp949'));
  }
  const { sample } = sampleFor(statement, member, report, consolidated, cache);
  const lines: string[] = [headerFor(sample.header, member, report)];
  if (sample.blocks.length > 0) {
    for (const co of universe.kr) {
      if ((consolidated && co.separateOnly) || co.financial !== null) continue;
      const block = sample.blocks[co.index % sample.blocks.length] as string[][];
      for (const cells of block) {
        const row = [...cells];
        let kind = (row[0] ?? '').replace(consolidated ? /별도/g : /연결/g, consolidated ? '연결' : '별도');
        if (member === '03') kind = kind.replace('손익계산서', '포괄손익계산서');
        row[0] = kind;
        row[1] = `[${co.stockCode}]`;
        row[2] = co.name;
        row[3] = marketName(co);
        row[6] = '12';
        row[7] = end;
        row[8] = rname;
        lines.push(row.join('\t'));
      }
    }
  }
  const data = iconv.encode(`${lines.join('\n')}\n`, 'cp949');
  return wholeMember(iconv.encode(name, 'cp949'), false, data);
}

const marketName = (c: KrCompany): string => (c.corpCls === 'Y' ? '유가증권시장상장법인' : '코스닥시장상장법인');

const MEMBERS: Record<Statement, { member: '01' | '02' | '03' | '04' | '05'; label: string; sectors: readonly string[] }[]> = {
  BS: [{ member: '01', label: '재무상태표', sectors: SECTORS }],
  PL: [
    { member: '02', label: '손익계산서', sectors: [''] },
    { member: '03', label: '포괄손익계산서', sectors: SECTORS },
  ],
  CF: [{ member: '04', label: '현금흐름표', sectors: SECTORS }],
  CE: [{ member: '05', label: '자본변동표', sectors: SECTORS }],
};

export interface DartPeriod {
  year: number;
  report: Report;
}

/** Periods with bulk files on `today`: 2015 annual, every quarter from 2016 whose filings are in. */
export function dartPeriods(today: string): DartPeriod[] {
  const out: DartPeriod[] = [];
  for (let y = 2015; y <= Number(today.slice(0, 4)); y++) {
    for (const r of [1, 2, 3, 4] as Report[]) {
      if (y === 2015 && r !== 4) continue;
      if (PERIOD_DONE[r](y) < today) out.push({ year: y, report: r });
    }
  }
  return out;
}

/** The build stamp of a period's files: a week after its last filings, 04:00:36 (2015 annual: DART's 2023 rebuild). */
function stampOf(p: DartPeriod): string {
  if (p.year === 2015) return '20230503040109';
  return `${isoOfDay(epochDay(PERIOD_DONE[p.report](p.year)) + 7).replace(/-/g, '')}040036`;
}

// ---------------------------------------------------------------------------------------

/**
 * The bulk files of a universe as of `today`, generated into `dir` unless a complete earlier
 * generation for the same scale and day is there (a `done.json` marker).
 */
export function prepareBulk(universe: Universe, today: string, dir: string, log: (msg: string) => void = () => undefined): BulkFiles {
  const marker = join(dir, 'done.json');
  const key = { scale: universe.scale, today, format: 6 };
  let summary: BulkSummary;
  const periods = dartPeriods(today);
  const zipName = (p: DartPeriod, s: Statement): string => `${p.year}_${p.report}Q_${s}_${stampOf(p)}.zip`;
  if (existsSync(marker) && JSON.stringify((JSON.parse(readFileSync(marker, 'utf8')) as { key: unknown }).key) === JSON.stringify(key)) {
    summary = { ...(JSON.parse(readFileSync(marker, 'utf8')) as { summary: BulkSummary }).summary, cached: true };
  } else {
    const t0 = performance.now();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'dart'), { recursive: true });
    const cache = new Map<string, SampleBlocks>();
    let dartBytes = 0;
    for (const p of periods) {
      for (const s of ['BS', 'PL', 'CF', 'CE'] as Statement[]) {
        const zip = new ZipWriter(join(dir, 'dart', zipName(p, s)));
        const vintage = stampOf(p).slice(0, 8);
        for (const m of MEMBERS[s]) for (const sector of m.sectors) for (const consolidated of [false, true]) zip.add(dartMember(universe, p.year, p.report, s, m.member, m.label, sector, consolidated, vintage, cache));
        dartBytes += zip.close();
      }
      log(`bulk: DART ${p.year} ${p.report}Q written`);
    }
    const sec = new SecApi(universe, () => today);
    const facts = new ZipWriter(join(dir, 'companyfacts.zip.partial'));
    const deflatedTail = new Map<string, { deflated: Buffer; crcInput: Buffer }>();
    for (const c of universe.us) {
      const t = sec.factsTemplate(c);
      let d = deflatedTail.get(sec.factsKey(c));
      if (!d) deflatedTail.set(sec.factsKey(c), (d = { deflated: deflateRawSync(t.tail), crcInput: t.tail }));
      const head = factsHead(c);
      // A sync flush ends the head's block on a byte boundary without the final bit; the
      // template's own deflate stream (final block included) follows it unchanged.
      const headDeflated = deflateRawSync(head, { finishFlush: constants.Z_SYNC_FLUSH });
      facts.add({ name: Buffer.from(`CIK${String(c.cik).padStart(10, '0')}.json`), utf8: false, crc: crc32(d.crcInput, crc32(head)), size: head.length + t.tail.length, deflated: [headDeflated, d.deflated] });
    }
    const companyfactsBytes = facts.close();
    renameSync(join(dir, 'companyfacts.zip.partial'), join(dir, 'companyfacts.zip'));
    log('bulk: companyfacts.zip written');
    const subs = new ZipWriter(join(dir, 'submissions.zip.partial'));
    for (const c of universe.us) subs.add(wholeMember(Buffer.from(`CIK${String(c.cik).padStart(10, '0')}.json`), false, Buffer.from(sec.submissionsOf(c), 'utf8')));
    const submissionsBytes = subs.close();
    renameSync(join(dir, 'submissions.zip.partial'), join(dir, 'submissions.zip'));
    summary = { dir, cached: false, generationMs: Math.round(performance.now() - t0), dartZips: periods.length * 4, dartBytes, companyfactsBytes, submissionsBytes };
    writeFileSync(marker, `${JSON.stringify({ key, summary }, null, 2)}\n`);
  }
  const names = new Set(periods.flatMap((p) => (['BS', 'PL', 'CF', 'CE'] as Statement[]).map((s) => zipName(p, s))));
  return {
    summary,
    dartListPage: () => {
      const rows = periods
        .slice()
        .reverse()
        .map((p) => {
          const links = (['BS', 'PL', 'CF', 'CE'] as Statement[]).map((s) => `<a href="#none" onclick="download_ext002('${p.year}','${LIST_CODE[p.report]}', '${s}', '${zipName(p, s)}')">${s}</a>`).join(' ');
          return `<tr><td>${p.year}</td><td>${REPORT_NAME[p.report]}</td><td>${links}</td></tr>`;
        });
      return { headers: { 'content-type': 'text/html; charset=UTF-8' }, body: `<html><body><table class="tb01"><tbody>\n${rows.join('\n')}\n</tbody></table></body></html>` };
    },
    dartZip: (name) => (names.has(name) ? { file: join(dir, 'dart', name), type: 'application/zip' } : null),
    secArchive: (kind) => ({ file: join(dir, `${kind}.zip`), type: 'application/zip' }),
  };
}
