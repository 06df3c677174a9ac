// The KRX Open API on the replica (data-dbg.krx.co.kr/svc/apis): the daily trading and listing
// services of KOSPI and KOSDAQ for every copy of the universe, in the shapes of the real answers
// in test/fixtures/real/krx-openapi/ (OutBlock_1, digit strings without separators, ISU_CD the
// short code in the trading rows and the ISIN in the listing rows). Prices follow the same path
// as the replica's FSC rows (fscItem), so either source gives a stock the same bars. The key
// goes in the AUTH_KEY header; without it the API answers 401 "Unauthorized Key".

import { fscItem, type Answer } from './api.js';
import { epochDay, isWeekday, type KrCompany, type Universe } from './universe.js';

const SERVICES: Readonly<Record<string, { cls: 'Y' | 'K'; market: string; kind: 'trades' | 'listing' }>> = {
  '/sto/stk_bydd_trd': { cls: 'Y', market: 'KOSPI', kind: 'trades' },
  '/sto/ksq_bydd_trd': { cls: 'K', market: 'KOSDAQ', kind: 'trades' },
  '/sto/stk_isu_base_info': { cls: 'Y', market: 'KOSPI', kind: 'listing' },
  '/sto/ksq_isu_base_info': { cls: 'K', market: 'KOSDAQ', kind: 'listing' },
};

const json = (body: unknown, status = 200): Answer => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });

/** The services' paths the replica answers (under its krx-openapi prefix). */
export function isKrxOpenApiService(sub: string): boolean {
  return SERVICES[sub] !== undefined;
}

/**
 * One call: `sub` the service path (`/sto/stk_bydd_trd`), `basDd` the date asked for. A day is
 * published from the next day on (today's date answers no rows, as the API does), a weekend
 * date answers none.
 */
export function krxOpenApi(universe: Universe, sub: string, basDd: string, authKey: string | undefined, today: string): Answer | null {
  const service = SERVICES[sub];
  if (!service) return null;
  if (!authKey) return json({ respMsg: 'Unauthorized Key', respCode: '401' }, 401);
  if (!/^\d{8}$/.test(basDd)) return json({ OutBlock_1: [] });
  const date = `${basDd.slice(0, 4)}-${basDd.slice(4, 6)}-${basDd.slice(6, 8)}`;
  const day = epochDay(date);
  if (!isWeekday(day) || date >= today) return json({ OutBlock_1: [] });
  const companies = universe.kr.filter((c: KrCompany) => c.corpCls === service.cls);
  if (service.kind === 'listing') {
    return json({
      OutBlock_1: companies.map((c) => ({
        ISU_ABBRV: c.name, ISU_CD: `KR7${c.stockCode}003`, ISU_ENG_NM: c.nameEn, ISU_NM: `${c.name}보통주`, ISU_SRT_CD: c.stockCode, KIND_STKCERT_TP_NM: '보통주',
        LIST_DD: '20100104', LIST_SHRS: fscItem(c, day)['lstgStCnt'], MKT_TP_NM: service.market, PARVAL: '500', SECT_TP_NM: service.cls === 'Y' ? '-' : '중견기업부', SECUGRP_NM: '주권',
      })),
    });
  }
  return json({
    OutBlock_1: companies.map((c) => {
      const it = fscItem(c, day);
      return {
        ACC_TRDVAL: it['trPrc'], ACC_TRDVOL: it['trqu'], BAS_DD: basDd, CMPPREVDD_PRC: it['vs'], FLUC_RT: Number(it['fltRt']).toFixed(2), ISU_CD: c.stockCode, ISU_NM: c.name, LIST_SHRS: it['lstgStCnt'],
        MKTCAP: it['mrktTotAmt'], MKT_NM: service.market, SECT_TP_NM: service.cls === 'Y' ? '-' : '중견기업부', TDD_CLSPRC: it['clpr'], TDD_HGPRC: it['hipr'], TDD_LWPRC: it['lopr'], TDD_OPNPRC: it['mkp'],
      };
    }),
  });
}
