// The financial-sector companies' statements in the replica: the REAL rows of the 2025 first
// quarter's bank, insurance, securities and other-financials bulk files
// (../shared/realdata/bulk/opendart, FORMATS.md section 1), one real listed company's block per
// copy and statement, the same company for the copy's balance sheet, income statement and cash
// flows. The bulk files carry them re-keyed (bench/replica/bulk.ts), and the API's
// fnlttSinglAcntAll answers are built from the same rows (bench/replica/api.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import type { FinancialSector, KrCompany } from './universe.js';

const REALDATA = process.env.REALDATA_DIR ?? '/work/shared/realdata';
const DART_SAMPLES = join(REALDATA, 'bulk', 'opendart');

/** The members of a quarter's bulk files that have financial-sector variants. */
export type FinancialMember = '01' | '03' | '04' | '05';
const LABEL: Record<FinancialMember, string> = { '01': '재무상태표', '03': '포괄손익계산서', '04': '현금흐름표', '05': '자본변동표' };

export interface FinancialSample {
  /** The file's header line (the balance sheet's, `당기 1분기말 전기말 전전기말`, for every statement). */
  header: string;
  /** Rows (cells) per listed company, by 종목코드 (`[192520]`); unlisted filers (`[null]`) left out. */
  byCode: Map<string, string[][]>;
}

const samples = new Map<string, FinancialSample>();

export function financialSample(sector: FinancialSector, member: FinancialMember, consolidated: boolean): FinancialSample {
  const file = `2025_1분기보고서_${member}_${LABEL[member]}_${sector}${consolidated ? '_연결' : ''}_20250606.txt.gz`;
  let sample = samples.get(file);
  if (!sample) {
    const lines = iconv.decode(gunzipSync(readFileSync(join(DART_SAMPLES, file))), 'cp949').split('\n').filter((l) => l.trim() !== '');
    const byCode = new Map<string, string[][]>();
    for (const line of lines.slice(1)) {
      const cells = line.replace(/\r$/, '').split('\t');
      const code = cells[1] ?? '';
      if (code === '[null]') continue;
      let rows = byCode.get(code);
      if (!rows) byCode.set(code, (rows = []));
      rows.push(cells);
    }
    samples.set(file, (sample = { header: lines[0] ?? '', byCode }));
  }
  return sample;
}

/**
 * The real company a financial copy's statements are taken from: one listed in the sector's
 * balance sheet, comprehensive income and cash-flow files alike (consolidated or separate), in
 * turn by the copy's index.
 */
export function financialTemplateCode(c: KrCompany, consolidated: boolean): string | null {
  if (c.financial === null) return null;
  const sector = c.financial;
  const codes = [...financialSample(sector, '01', consolidated).byCode.keys()].filter((code) => financialSample(sector, '03', consolidated).byCode.has(code) && financialSample(sector, '04', consolidated).byCode.has(code)).sort();
  return codes.length === 0 ? null : (codes[Math.floor(c.index / 25) % codes.length] as string);
}

/** A financial copy's rows of one statement (the real company's cells, not yet re-keyed); empty when it has none. */
export function financialRows(c: KrCompany, member: FinancialMember, consolidated: boolean): string[][] {
  const code = financialTemplateCode(c, consolidated);
  if (code === null || c.financial === null) return [];
  return financialSample(c.financial, member, consolidated).byCode.get(code) ?? [];
}

/** An amount cell (`-954,506,120`) times `factor`, written back the same way; other cells unchanged. */
export function scaledAmount(cell: string, factor: number): string {
  const n = Number(cell.replace(/,/g, ''));
  if (cell.trim() === '' || !Number.isFinite(n)) return cell;
  return Math.round(n * factor).toLocaleString('en-US');
}
