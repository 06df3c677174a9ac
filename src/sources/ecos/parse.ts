// Parser for the Bank of Korea ECOS StatisticSearch API, table 731Y001 (주요국 통화의
// 대원화환율, daily), item 0000001 (원/미국달러 매매기준율):
// `{"StatisticSearch":{"list_total_count":2,"row":[{"STAT_CODE":"731Y001","STAT_NAME":..,
//   "ITEM_CODE1":"0000001","ITEM_NAME1":"원/미국달러(매매기준율)",..,"UNIT_NAME":"원 ",
//   "WGT":null,"TIME":"20241120","DATA_VALUE":"1395.5"}]}}`. Errors and "no data" come as
// `{"RESULT":{"CODE":"INFO-200","MESSAGE":"해당하는 데이터가 없습니다."}}`.

import type { FxRate } from '../../domain/model.js';
import { isRecord, parseAmount, str, toIsoDate } from '../shared/parse.js';

export const SOURCE_NAME = 'ecos';

export type EcosAnswer =
  | { kind: 'rows'; total: number; rates: FxRate[] }
  | { kind: 'result'; code: string; message: string };

export function parseStatisticSearch(body: unknown): EcosAnswer | null {
  if (!isRecord(body)) return null;
  const result = body['RESULT'];
  if (isRecord(result)) return { kind: 'result', code: str(result, 'CODE'), message: str(result, 'MESSAGE') };
  const search = body['StatisticSearch'];
  if (!isRecord(search) || !Array.isArray(search['row'])) return null;
  const rates: FxRate[] = [];
  for (const r of search['row']) {
    if (!isRecord(r)) continue;
    const date = toIsoDate(str(r, 'TIME'));
    const v = parseAmount(str(r, 'DATA_VALUE'));
    if (date === null || v === null || v <= 0) continue;
    rates.push({ date, usdKrw: v, source: SOURCE_NAME });
  }
  return { kind: 'rows', total: Number(search['list_total_count'] ?? rates.length) || 0, rates };
}
