// KSIC (Korean Standard Industrial Classification) codes, as OpenDART company.json gives them
// in `induty_code`, mapped to the service's KR sector names (the demo's MARKET_SECTORS.KR, so
// real and demo cohorts line up). The longest matching prefix wins: `26211` (LCD panels) is
// Displays through `2621`, `26429` (other communications equipment) is Electronic Components
// through `26`. Codes without a match are 'Unclassified'. Division/group numbers are the same
// in KSIC revisions 9, 10 and 11 for the entries below unless noted.

export const UNCLASSIFIED = 'Unclassified';

/** KSIC prefix -> sector. Keep in sync with the table in docs/sources.md (opendart section). */
export const KSIC_SECTORS: Readonly<Record<string, string>> = {
  // Food, beverages, tobacco
  '10': 'Food & Beverage',
  '11': 'Food & Beverage',
  '12': 'Food & Beverage',
  // Textiles, apparel, leather and footwear
  '13': 'Textiles & Apparel',
  '14': 'Textiles & Apparel',
  '15': 'Textiles & Apparel',
  // Coke and refined petroleum
  '19': 'Energy',
  // Chemicals; cosmetics are 20423 in KSIC 10/11 and 20433 in KSIC 9
  '20': 'Chemicals',
  '20423': 'Cosmetics',
  '20433': 'Cosmetics',
  // Pharmaceuticals and medicinal chemicals
  '21': 'Pharmaceuticals',
  // Rubber and plastics; tyres and tubes are auto parts
  '22': 'Chemicals',
  '2211': 'Auto Parts',
  // Basic metals (iron and steel, non-ferrous, casting)
  '24': 'Steel',
  // Weapons and ammunition
  '252': 'Defense',
  // Electronic components, computers, communications and AV equipment
  '26': 'Electronic Components',
  '261': 'Semiconductors',
  '2621': 'Displays',
  // Electrical equipment; primary and secondary batteries (28201, 28202)
  '28': 'Machinery',
  '282': 'Secondary Batteries',
  // Other machinery and equipment
  '29': 'Machinery',
  // Motor vehicles: 301 vehicles and engines, 302 bodies and trailers, 303/304 parts
  '30': 'Auto Parts',
  '301': 'Automobiles',
  '302': 'Automobiles',
  // Ships and boats; aircraft and spacecraft
  '311': 'Shipbuilding',
  '313': 'Defense',
  // Electricity, gas, steam; water
  '35': 'Utilities',
  '36': 'Utilities',
  // Construction of buildings; civil engineering
  '41': 'Construction',
  '42': 'Construction',
  // Retail trade
  '47': 'Retail',
  // Land, water and air transport; warehousing and transport support
  '49': 'Transportation',
  '50': 'Transportation',
  '51': 'Transportation',
  '52': 'Transportation',
  // Publishing; software publishing; game software
  '58': 'Media & Entertainment',
  '582': 'Software',
  '5821': 'Games',
  // Film, video, broadcasting programmes, music; broadcasting
  '59': 'Media & Entertainment',
  '60': 'Media & Entertainment',
  // Telecommunications
  '61': 'Telecom',
  // Computer programming, consultancy and system integration
  '62': 'Software',
  // Data processing, hosting, portals
  '631': 'Internet',
  // Banks and savings institutions
  '641': 'Banks',
  // Trusts and collective investment (asset managers, real-estate trusts)
  '642': 'Other Financials',
  // Credit: leasing, development finance, credit cards and instalment finance, other credit
  '6491': 'Other Financials',
  // Fund management and other finance n.e.c. (not 64992, holding companies)
  '64991': 'Other Financials',
  '64999': 'Other Financials',
  // Insurance and pensions
  '65': 'Insurance',
  // Financial support services (brokers), securities and futures brokerage
  '661': 'Securities',
  '6612': 'Securities',
  // Natural-science research and development (listed members are mostly biotechs)
  '7011': 'Biotech',
};

/** The sector of a KSIC code by longest prefix, or 'Unclassified'. */
export function sectorForKsic(code: string): string {
  const digits = code.trim();
  if (!/^\d+$/.test(digits)) return UNCLASSIFIED;
  for (let len = digits.length; len >= 2; len--) {
    const sector = KSIC_SECTORS[digits.slice(0, len)];
    if (sector !== undefined) return sector;
  }
  return UNCLASSIFIED;
}

/**
 * The statement layouts of the bulk files (the member name's sector: 은행, 보험, 증권, 금융기타;
 * none for the general layout) and the sector each gives its filers.
 */
export const LAYOUT_SECTORS: Readonly<Record<string, string>> = { 은행: 'Banks', 보험: 'Insurance', 증권: 'Securities', 금융기타: 'Other Financials' };

/**
 * A 금융기타 filer whose liabilities are at least this share customer deposits
 * (`ifrs-full_DepositsFromCustomers`) is a bank group: the financial holding companies of the
 * bank groups (KB금융, 신한지주, 하나금융지주, 우리금융지주, BNK, iM, JB: 61 to 76 % in 2025 Q1) and
 * savings banks filing that layout; other holding companies (메리츠금융지주 13 %, 한국금융지주 16 %),
 * card, capital and venture firms hold none or few.
 */
export const BANK_GROUP_DEPOSIT_SHARE = 0.5;

/**
 * The sector of a company by the statement layout it files; null for the general layout (the
 * KSIC code decides). `depositShare`: customer deposits over total liabilities on the basis the
 * company's report is taken from, null when either is not filed.
 */
export function sectorOfLayout(layout: string, depositShare: number | null): string | null {
  const sector = LAYOUT_SECTORS[layout];
  if (sector === undefined) return null;
  if (layout === '금융기타' && depositShare !== null && depositShare >= BANK_GROUP_DEPOSIT_SHARE) return 'Banks';
  return sector;
}

/**
 * The API path's rule, which knows no layout: a company its KSIC code leaves Unclassified (a
 * holding company, 64992) whose statements show customer deposits of at least
 * BANK_GROUP_DEPOSIT_SHARE of its liabilities is a bank group (Banks); any other keeps its sector.
 */
export function sectorByDeposits(sector: string, depositShare: number | null): string {
  return sector === UNCLASSIFIED && depositShare !== null && depositShare >= BANK_GROUP_DEPOSIT_SHARE ? 'Banks' : sector;
}
