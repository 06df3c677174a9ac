// Parsers for the Korea Customs Service open APIs on data.go.kr (XML only):
// - 수출입총괄 `1220000/Newtrade/getNewtradeList` (strtYymm, endYymm <= 12 months apart):
//   `<item><balPayments/><expCnt/><expDlr/><impCnt/><impDlr/><year>2024.01</year></item>`
// - 품목별 수출입실적 `1220000/Itemtrade/getItemtradeList` (one month, every 10-digit HSK):
//   `<item><balPayments/><expDlr/><expWgt/><hsCode/><impDlr/><impWgt/><statKor/><year/></item>`
// Both append a summary row `<year>총계</year>` (hsCode "-") that must be dropped or totals
// double. Amounts are US dollars.

import type { SectorExportMonth, TradeMonth } from '../../domain/model.js';
import { parseAmount } from '../shared/parse.js';
import { readFlatXml, type FlatXml } from '../shared/xml.js';
import { EXPORT_SECTORS } from '../shared/export-sectors.js';
import { sectorOfHs } from './sectors.js';

export const SOURCE_NAME = 'customs';

export interface CustomsPage {
  resultCode: string;
  resultMsg: string;
  totalCount: number | null;
  items: Record<string, string>[];
}

/**
 * Null when the body is not well-formed XML or has no resultCode (not the documented
 * envelope). One `<item>`, many, or none (`<items/>`) all give an array.
 */
export function parseCustomsXml(xml: string): CustomsPage | null {
  let doc: FlatXml;
  try {
    doc = readFlatXml(xml, 'item');
  } catch {
    return null;
  }
  const resultCode = doc.text.get('resultCode');
  if (resultCode === undefined) return null;
  const total = doc.text.get('totalCount');
  return {
    resultCode,
    resultMsg: doc.text.get('resultMsg') ?? '',
    totalCount: total === undefined || total === '' ? null : Number(total),
    items: doc.records,
  };
}

/** `2024.01` -> `2024-01`; the 총계 row and anything else -> null. */
export function monthOf(year: string | undefined): string | null {
  const m = /^(\d{4})\.(\d{2})$/.exec((year ?? '').trim());
  return m ? `${m[1]}-${m[2]}` : null;
}

export function toTradeMonths(items: Record<string, string>[]): TradeMonth[] {
  const out: TradeMonth[] = [];
  for (const it of items) {
    const month = monthOf(it['year']);
    const exports = parseAmount(it['expDlr']);
    const imports = parseAmount(it['impDlr']);
    if (month === null || exports === null || imports === null) continue;
    out.push({ month, exports, imports, balance: parseAmount(it['balPayments']) ?? exports - imports, source: SOURCE_NAME });
  }
  return out.sort((a, b) => a.month.localeCompare(b.month));
}

/** Sums item rows per month and sector; every sector of EXPORT_SECTORS (Other included) gets a row, 0 when nothing matched. */
export function toSectorExports(items: Record<string, string>[]): SectorExportMonth[] {
  const sums = new Map<string, Map<string, number>>();
  for (const it of items) {
    const month = monthOf(it['year']);
    const hs = (it['hsCode'] ?? it['hsCd'] ?? '').trim();
    if (month === null || !/^\d+$/.test(hs)) continue;
    const v = parseAmount(it['expDlr']);
    if (v === null) continue;
    let m = sums.get(month);
    if (!m) {
      m = new Map<string, number>(EXPORT_SECTORS.map((s) => [s, 0]));
      sums.set(month, m);
    }
    const sector = sectorOfHs(hs);
    m.set(sector, (m.get(sector) ?? 0) + v);
  }
  const out: SectorExportMonth[] = [];
  for (const [month, m] of [...sums].sort((a, b) => a[0].localeCompare(b[0]))) {
    for (const [sector, exports] of m) out.push({ month, sector, exports, source: SOURCE_NAME });
  }
  return out;
}
