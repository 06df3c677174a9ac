// What the MCP Apps view reads from a tool result: the `structuredContent` of the tools it draws,
// in either row form the MCP door answers (objects, or `format=columns`: columns named once and
// rows as arrays), and which of its pictures a result is.

import type { PriceBar, PriceHistory, RankingRow, ScreenAnswer, ScreenRow, SectorExports, StockSnapshot, TradeTotal, ValuationBand } from '../types.js';

/** The compact form of a list: columns named once, one array per row. */
interface Columns {
  columns: string[];
  rows: (string | number | null)[][];
}

function isColumns(value: unknown): value is Columns {
  return value !== null && typeof value === 'object' && Array.isArray((value as Columns).columns) && Array.isArray((value as Columns).rows);
}

/** A list in object form, whichever form the answer used. */
export function rowsOf<T>(value: unknown): T[] {
  if (Array.isArray(value)) return value as T[];
  if (isColumns(value)) return value.rows.map((row) => Object.fromEntries(value.columns.map((c, i) => [c, row[i] ?? null])) as T);
  return [];
}

export type Picture =
  | { kind: 'prices'; data: PriceHistory }
  | { kind: 'band'; data: ValuationBand }
  | { kind: 'rankings'; data: { market: string; rows: RankingRow[]; totalCount: number; updatedAt: string; source: string; disclaimer?: string } }
  | { kind: 'screen'; data: ScreenAnswer }
  | { kind: 'snapshot'; data: StockSnapshot }
  | { kind: 'trade'; data: TradeTotal }
  | { kind: 'sectors'; data: SectorExports };

type Content = Record<string, unknown>;

/** The picture of a tool's result: by the tool's name when the host says it, else by the answer's shape. */
export function pictureOf(tool: string | undefined, content: Content): Picture | null {
  const name = tool ?? shapeName(content);
  switch (name) {
    case 'get_price_history':
      return { kind: 'prices', data: { ...(content as unknown as PriceHistory), bars: rowsOf<PriceBar>(content.bars) } };
    case 'get_valuation_band':
      return { kind: 'band', data: content as unknown as ValuationBand };
    case 'get_rankings':
      return { kind: 'rankings', data: content as unknown as Extract<Picture, { kind: 'rankings' }>['data'] };
    case 'screen_stocks':
      return { kind: 'screen', data: { ...(content as unknown as ScreenAnswer), rows: rowsOf<ScreenRow>(content.rows) } };
    case 'get_stock_snapshot':
      return { kind: 'snapshot', data: content as unknown as StockSnapshot };
    case 'get_trade_total':
      return { kind: 'trade', data: { ...(content as unknown as TradeTotal), rows: rowsOf<TradeTotal['rows'][number]>(content.rows) } };
    case 'get_sector_exports': {
      const data = content as unknown as SectorExports;
      return { kind: 'sectors', data: { ...data, sectors: data.sectors.map((s) => ({ ...s, series: rowsOf<SectorExports['sectors'][number]['series'][number]>(s.series) })) } };
    }
    default:
      return null;
  }
}

/** The tool an answer comes from, by the fields only its answer has. */
function shapeName(content: Content): string | undefined {
  if ('bars' in content) return 'get_price_history';
  if ('years' in content && 'p5' in content) return 'get_valuation_band';
  if ('formula' in content && 'rows' in content) return 'get_rankings';
  if ('fields' in content && 'units' in content) return 'screen_stocks';
  if ('valuation' in content && 'profitability' in content) return 'get_stock_snapshot';
  if ('sectors' in content && 'basis' in content) return 'get_sector_exports';
  if ('rows' in content && 'unit' in content) return 'get_trade_total';
  return undefined;
}
