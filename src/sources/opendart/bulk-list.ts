// OpenDART's 재무정보 일괄다운로드 (bulk financial statements), the download side: the list
// page names every quarterly ZIP with its build stamp, and each ZIP is fetched by that name.
// No API key. The stamp changes when DART rebuilds a period, so names are read from the list,
// never guessed, and a new stamp replaces the file of the old one.

import { randomUUID } from 'node:crypto';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FiscalQuarter } from '../../domain/model.js';
import type { HttpClient } from '../http.js';
import type { ProgressSink } from '../progress.js';

export type DartBulkStatement = 'BS' | 'PL' | 'CF' | 'CE';

export interface DartBulkFile {
  /** The published file name, e.g. `2025_1Q_BS_20250606175523.zip`. */
  name: string;
  year: number;
  quarter: FiscalQuarter;
  statement: DartBulkStatement;
  /** The build time `YYYYMMDDhhmmss`; a later stamp is a rebuild of the same period. */
  stamp: string;
}

const NAME = /^(\d{4})_([1-4])Q_(BS|PL|CF|CE)_(\d{14})\.zip$/;

/** A published bulk ZIP name read into its parts; null for any other name. */
export function parseDartBulkName(name: string): DartBulkFile | null {
  const m = NAME.exec(name);
  if (!m) return null;
  return {
    name,
    year: Number(m[1]),
    quarter: Number(m[2]) as FiscalQuarter,
    statement: m[3] as DartBulkStatement,
    stamp: m[4] ?? '',
  };
}

/** The list page's period codes: 1분기 FQ, 반기 HY, 3분기 TQ, 사업보고서 FY. */
const QUARTER_OF_CODE: Readonly<Record<string, FiscalQuarter>> = { FQ: 1, HY: 2, TQ: 3, FY: 4 };

/**
 * The files of the list page: one `download_ext002('2025','FQ', 'BS', '2025_1Q_BS_20250606175523.zip')`
 * link per file. A link whose name disagrees with its own year, period or statement is dropped
 * (the name is what the download asks for, so it must be the one read back).
 */
export function parseDartBulkList(html: string): DartBulkFile[] {
  const out: DartBulkFile[] = [];
  const seen = new Set<string>();
  const link = /download_ext002\(\s*'(\d{4})'\s*,\s*'([A-Z]{2})'\s*,\s*'([A-Z]{2})'\s*,\s*'([^']+)'\s*\)/g;
  for (const m of html.matchAll(link)) {
    const file = parseDartBulkName(m[4] ?? '');
    if (file === null || seen.has(file.name)) continue;
    if (String(file.year) !== m[1] || QUARTER_OF_CODE[m[2] ?? ''] !== file.quarter || file.statement !== m[3]) continue;
    seen.add(file.name);
    out.push(file);
  }
  return out;
}

const periodKey = (f: DartBulkFile): string => `${f.year}_${f.quarter}Q_${f.statement}`;

/** The newest build of each (year, quarter, statement), ordered by year, quarter, statement. */
export function newestPerPeriod(files: readonly DartBulkFile[]): DartBulkFile[] {
  const newest = new Map<string, DartBulkFile>();
  for (const f of files) {
    const held = newest.get(periodKey(f));
    if (held === undefined || f.stamp > held.stamp) newest.set(periodKey(f), f);
  }
  return [...newest.values()].sort((a, b) => a.year - b.year || a.quarter - b.quarter || a.statement.localeCompare(b.statement));
}

export const DART_BULK_BASE_URL = 'https://opendart.fss.or.kr';
const MAIN_PAGE = '/disclosureinfo/fnltt/dwld/main.do';
const LIST_PAGE = '/disclosureinfo/fnltt/dwld/list.do';
const FILE_PATH = '/cmm/downloadFnlttZip.do';
/**
 * DART serves the files to a browser coming from its own page: several working downloaders send
 * a browser User-Agent and the main page as Referer (docs/sources.md).
 */
const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

export interface DownloadDartBulkOptions {
  /** `https://opendart.fss.or.kr` unless a test or a mirror says otherwise. */
  baseUrl?: string;
  fromYear: number;
  toYear: number;
  /** The statements to fetch; default BS, PL and CF (the reader takes nothing from CE). */
  statements?: readonly DartBulkStatement[];
  progress: ProgressSink;
  signal?: AbortSignal;
}

export interface DownloadDartBulkResult {
  /** Paths of the listed files now in the folder (downloaded in this call or already there). */
  files: string[];
  failed: { name: string; reason: string }[];
}

/**
 * Lists DART's bulk files and downloads the newest build of each period and statement in
 * [fromYear, toYear] into `dir`. A file already there under its published name is not fetched
 * again; a new build's stamp is a new name, so it is fetched and the older builds of that period
 * are removed. Each answer must start with `PK` (DART answers an error with an HTML page and
 * status 200); anything else is counted as failed and never saved. Files are written to a
 * temporary name and renamed, so the folder never holds half a ZIP under a published name.
 * A failed file does not stop the others; a failed list page throws.
 */
export async function downloadDartBulk(http: HttpClient, dir: string, options: DownloadDartBulkOptions): Promise<DownloadDartBulkResult> {
  const base = (options.baseUrl ?? DART_BULK_BASE_URL).replace(/\/+$/, '');
  const headers = { Referer: `${base}${MAIN_PAGE}`, 'User-Agent': BROWSER_USER_AGENT };
  const wanted = new Set<DartBulkStatement>(options.statements ?? ['BS', 'PL', 'CF']);
  options.progress({ phase: 'listing', unit: 'files', done: 0, total: null, note: 'reading the bulk list page' });
  const html = await http.getText(`${base}${LIST_PAGE}`, { headers: { ...headers, 'X-Requested-With': 'XMLHttpRequest' } });
  const listed = parseDartBulkList(html);
  if (listed.length === 0) throw http.parseError('the bulk list page names no file', `${base}${LIST_PAGE}`);
  const files = newestPerPeriod(listed).filter((f) => f.year >= options.fromYear && f.year <= options.toYear && wanted.has(f.statement));

  const present = new Set(await readdir(dir).catch(() => [] as string[]));
  const result: DownloadDartBulkResult = { files: [], failed: [] };
  let bytes = 0;
  options.progress({ phase: 'downloading', unit: 'files', done: 0, total: files.length, bytes: 0, note: null });
  for (const [i, file] of files.entries()) {
    if (options.signal?.aborted) break;
    const path = join(dir, file.name);
    if (!present.has(file.name)) {
      const failure = await fetchOne(http, `${base}${FILE_PATH}?fl_nm=${encodeURIComponent(file.name)}`, path, headers);
      if (typeof failure === 'string') {
        result.failed.push({ name: file.name, reason: failure });
        options.progress({ done: i + 1, bytes });
        continue;
      }
      bytes += failure.bytes;
    }
    result.files.push(path);
    // Older builds of the same period and statement: the new stamp supersedes them.
    for (const other of present) {
      const old = parseDartBulkName(other);
      if (old !== null && old.name !== file.name && periodKey(old) === periodKey(file) && old.stamp < file.stamp) {
        await rm(join(dir, other), { force: true });
        present.delete(other);
      }
    }
    options.progress({ done: i + 1, bytes });
  }
  options.progress({ phase: 'done', done: files.length, total: files.length, bytes, note: result.failed.length > 0 ? `${result.failed.length} file(s) failed` : null });
  return result;
}

/** Fetches one ZIP into `path` atomically; the failure's reason, or the bytes written. */
async function fetchOne(http: HttpClient, url: string, path: string, headers: Record<string, string>): Promise<{ bytes: number } | string> {
  let body: Uint8Array;
  try {
    body = await http.getBytes(url, { headers });
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (body.length < 4 || body[0] !== 0x50 || body[1] !== 0x4b) {
    const head = new TextDecoder().decode(body.slice(0, 200)).replace(/\s+/g, ' ').trim();
    return /<(!doctype|html|head|body)/i.test(head) ? 'not a ZIP (an HTML page)' : 'not a ZIP';
  }
  const temp = `${path}.${randomUUID()}.part`;
  try {
    await writeFile(temp, body);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    return `not written: ${err instanceof Error ? err.message : String(err)}`;
  }
  return { bytes: body.length };
}
