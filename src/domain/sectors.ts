// Korean names of the stock sectors the service serves: the one table both doors (`sectorKo`
// beside `sector`) and the dashboard read. The English name stays the key everywhere (cohorts,
// filters, the store); a Korean name given to a sector filter resolves to it. Every sector a
// source produces has an entry (test/sources/sector-names.test.ts); a name without one (a
// sector stored under another name) has a null `sectorKo` (docs/web.md, "Sector names").

export const SECTOR_NAMES_KO: Readonly<Record<string, string>> = {
  'Aerospace & Defense': '항공우주·방산',
  'Asset Management': '자산운용',
  'Auto Parts': '자동차부품',
  Automobiles: '자동차',
  Banks: '은행',
  Biotech: '바이오',
  Chemicals: '화학',
  Construction: '건설',
  'Consumer Products': '소비재',
  'Consumer Services': '소비자 서비스',
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
  Industrials: '산업재',
  Insurance: '보험',
  Internet: '인터넷',
  Machinery: '기계',
  Materials: '소재',
  'Media & Entertainment': '미디어·엔터테인먼트',
  'Medical Devices': '의료기기',
  'Other Financials': '기타금융',
  Pharmaceuticals: '제약',
  REITs: '리츠',
  'Real Estate': '부동산',
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
  Wholesale: '도매',
};

const ENGLISH_OF_KO: ReadonlyMap<string, string> = new Map(Object.entries(SECTOR_NAMES_KO).map(([en, ko]) => [ko, en]));

/** The Korean name of a sector, or null for a name outside the table. */
export function sectorKo(sector: string): string | null {
  return Object.hasOwn(SECTOR_NAMES_KO, sector) ? (SECTOR_NAMES_KO[sector] as string) : null;
}

/** A sector as a filter names it, in English or Korean, as the English name the data keys on. */
export function sectorFromEither(name: string): string {
  return ENGLISH_OF_KO.get(name.trim()) ?? name;
}

/**
 * Korean names of the export sectors get_sector_exports ranks (src/sources/shared/export-sectors.ts),
 * as Korea's trade statistics name the items (선박 for ships, 일반기계 for machinery).
 */
export const EXPORT_SECTOR_NAMES_KO: Readonly<Record<string, string>> = {
  'Agricultural Machinery': '농기계',
  'Agricultural Products': '농산물',
  'Aircraft and Parts': '항공기·부품',
  Apparel: '의류',
  'Audio and Video Equipment': '영상·음향기기',
  'Auto Parts': '자동차부품',
  Automobiles: '자동차',
  Ceramics: '세라믹',
  Computers: '컴퓨터',
  'Construction Machinery': '건설기계',
  Cosmetics: '화장품',
  Displays: '디스플레이',
  'Electrical Equipment': '전기기기',
  'Electronic Components': '전자부품',
  Fertilizers: '비료',
  'Fine Chemicals': '정밀화학',
  'Fishery Products': '수산물',
  Footwear: '신발',
  Furniture: '가구',
  'Game Consoles and Content': '게임기·콘텐츠',
  Glass: '유리',
  'Home Appliances': '가전',
  Jewelry: '귀금속·보석',
  Leather: '가죽',
  Machinery: '일반기계',
  'Medical Devices': '의료기기',
  'Metal Products': '금속제품',
  'Musical Instruments': '악기',
  'Nonferrous Metals': '비철금속',
  'Optical Equipment': '광학기기',
  Other: '기타',
  Paper: '종이',
  Petrochemicals: '석유화학',
  'Petroleum Products': '석유제품',
  Pharmaceuticals: '의약품',
  Plastics: '플라스틱',
  'Power Generation Equipment': '발전설비',
  'Precision Instruments': '정밀기기',
  'Printed Matter': '인쇄물',
  'Processed Food': '가공식품',
  'Railway Vehicles': '철도차량',
  Robots: '로봇',
  'Rubber Products': '고무제품',
  'Secondary Batteries': '이차전지',
  'Semiconductor Equipment': '반도체 장비',
  Semiconductors: '반도체',
  Shipbuilding: '선박',
  'Solar Cells': '태양전지',
  'Sporting Goods': '스포츠용품',
  Steel: '철강',
  'Synthetic Resins': '합성수지',
  Textiles: '섬유',
  Tires: '타이어',
  Toys: '완구',
  'Wireless Communication Devices': '무선통신기기',
};

/** The Korean name of an export sector, or null for a name outside the list. */
export function exportSectorKo(sector: string): string | null {
  return Object.hasOwn(EXPORT_SECTOR_NAMES_KO, sector) ? (EXPORT_SECTOR_NAMES_KO[sector] as string) : null;
}
