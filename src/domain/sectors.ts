// Korean names of the stock sectors the service serves: the one table both doors (`sectorKo`
// beside `sector`) and the dashboard read. The English name stays the key everywhere (cohorts,
// filters, the store); a Korean name given to a sector filter resolves to it. SEC industry
// titles (SIC descriptions such as "Electronic Computers") have no entry: their `sectorKo` is
// null (docs/web.md, "Sector names").

export const SECTOR_NAMES_KO: Readonly<Record<string, string>> = {
  'Aerospace & Defense': '항공우주·방산',
  'Asset Management': '자산운용',
  'Auto Parts': '자동차부품',
  Automobiles: '자동차',
  Banks: '은행',
  Biotech: '바이오',
  Chemicals: '화학',
  Construction: '건설',
  Cosmetics: '화장품',
  Defense: '방위산업',
  Displays: '디스플레이',
  'Electronic Components': '전자부품',
  Energy: '에너지',
  'Food & Beverage': '음식료',
  Games: '게임',
  Hardware: '하드웨어',
  'Health Care Services': '헬스케어 서비스',
  'Household Products': '생활용품',
  Insurance: '보험',
  Internet: '인터넷',
  Machinery: '기계',
  'Media & Entertainment': '미디어·엔터테인먼트',
  'Medical Devices': '의료기기',
  'Other Financials': '기타금융',
  Pharmaceuticals: '제약',
  REITs: '리츠',
  Restaurants: '외식',
  Retail: '유통',
  'Secondary Batteries': '이차전지',
  Securities: '증권',
  Semiconductors: '반도체',
  Shipbuilding: '조선',
  Software: '소프트웨어',
  Steel: '철강',
  Telecom: '통신',
  'Textiles & Apparel': '섬유·의류',
  Transportation: '운송',
  Unclassified: '미분류',
  Utilities: '유틸리티',
};

const ENGLISH_OF_KO: ReadonlyMap<string, string> = new Map(Object.entries(SECTOR_NAMES_KO).map(([en, ko]) => [ko, en]));

/** The Korean name of a sector, or null where the service has none (SEC industry titles). */
export function sectorKo(sector: string): string | null {
  return Object.hasOwn(SECTOR_NAMES_KO, sector) ? (SECTOR_NAMES_KO[sector] as string) : null;
}

/** A sector as a filter names it, in English or Korean, as the English name the data keys on. */
export function sectorFromEither(name: string): string {
  return ENGLISH_OF_KO.get(name.trim()) ?? name;
}
