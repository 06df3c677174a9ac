// SEC SIC codes (submissions' `sic`, four digits) mapped to the service's US sector names (the
// demo's MARKET_SECTORS.US, so real and demo cohorts line up, plus the financial sectors KR
// companies are placed in and a few sectors where none of those fits). The longest matching
// prefix wins, as for KSIC (src/sources/opendart/sectors.ts): `3674` (semiconductors) is
// Semiconductors, `3672` (printed circuit boards) Electronic Components through `367`, `3621`
// (motors and generators) Machinery through `36`. A code without a match (blank, 6411 insurance
// agents and brokers, 6770 blank checks, 8880 ADRs, 99xx non-classifiable) is 'Unclassified'.
// Keep in sync with the table in docs/sources.md (sec section); a test compares the two.

export const UNCLASSIFIED = 'Unclassified';

/** SIC prefix -> sector. */
export const SIC_SECTORS: Readonly<Record<string, string>> = {
  // Agriculture, forestry, fishing
  '01': 'Food & Beverage',
  '02': 'Food & Beverage',
  '07': 'Food & Beverage',
  '08': 'Materials',
  '09': 'Food & Beverage',
  // Mining: metal ores and non-metallic minerals; coal, oil and gas (with drilling and field services)
  '10': 'Materials',
  '12': 'Energy',
  '13': 'Energy',
  '14': 'Materials',
  // Construction: building contractors, operative builders (homebuilders), heavy and special trades
  '15': 'Construction',
  '16': 'Construction',
  '17': 'Construction',
  // Food and kindred products; tobacco
  '20': 'Food & Beverage',
  '21': 'Food & Beverage',
  // Textile mill products; apparel
  '22': 'Textiles & Apparel',
  '23': 'Textiles & Apparel',
  // Lumber and wood; mobile homes and prefabricated wood buildings are homebuilding
  '24': 'Materials',
  '245': 'Construction',
  // Furniture and fixtures
  '25': 'Consumer Products',
  // Paper and allied products
  '26': 'Materials',
  // Printing and publishing
  '27': 'Media & Entertainment',
  // Chemicals; drugs (2833 medicinal chemicals, 2834 pharmaceutical preparations, 2835 diagnostic
  // substances), 2836 biological products; soaps and cleaners, 2844 perfumes and cosmetics
  '28': 'Chemicals',
  '283': 'Pharmaceuticals',
  '2836': 'Biotech',
  '284': 'Household Products',
  '2844': 'Cosmetics',
  // Petroleum refining
  '29': 'Energy',
  // Rubber and plastics; tyres are auto parts, rubber and plastic footwear (Nike) apparel
  '30': 'Chemicals',
  '301': 'Auto Parts',
  '302': 'Textiles & Apparel',
  // Leather and footwear
  '31': 'Textiles & Apparel',
  // Stone, clay, glass and concrete
  '32': 'Materials',
  // Primary metals (steel, aluminium, non-ferrous), as KSIC 24 basic metals
  '33': 'Steel',
  // Fabricated metal products; metal cans are packaging; ordnance
  '34': 'Machinery',
  '341': 'Materials',
  '348': 'Aerospace & Defense',
  // Industrial machinery; oil and gas field machinery; computers, storage, networking and office machines
  '35': 'Machinery',
  '3533': 'Energy',
  '357': 'Hardware',
  // Electrical equipment; household appliances and audio/video; records; communications
  // equipment; electronic components; semiconductors
  '36': 'Machinery',
  '363': 'Consumer Products',
  '365': 'Consumer Products',
  '3652': 'Media & Entertainment',
  '366': 'Hardware',
  '367': 'Electronic Components',
  '3674': 'Semiconductors',
  // Transportation equipment: motor vehicles, bodies, trailers and motor homes; parts; aircraft;
  // ships and boats; railroad equipment; motorcycles; guided missiles and space vehicles
  '37': 'Machinery',
  '371': 'Automobiles',
  '3714': 'Auto Parts',
  '372': 'Aerospace & Defense',
  '373': 'Shipbuilding',
  '375': 'Automobiles',
  '376': 'Aerospace & Defense',
  '379': 'Automobiles',
  // Instruments: search, navigation and guidance systems; measuring and control instruments;
  // laboratory analytical instruments (life-science tools); medical, dental and ophthalmic goods;
  // photographic equipment; watches
  '38': 'Machinery',
  '381': 'Aerospace & Defense',
  '382': 'Electronic Components',
  '3826': 'Medical Devices',
  '384': 'Medical Devices',
  '385': 'Medical Devices',
  '386': 'Hardware',
  '387': 'Consumer Products',
  // Miscellaneous manufacturing: jewellery, musical instruments, toys, sporting goods
  '39': 'Consumer Products',
  // Railroads, transit, trucking and warehousing, postal, water and air transport, transportation services
  '40': 'Transportation',
  '41': 'Transportation',
  '42': 'Transportation',
  '43': 'Transportation',
  '44': 'Transportation',
  '45': 'Transportation',
  '47': 'Transportation',
  // Pipelines
  '46': 'Energy',
  // Communications: telephone and radiotelephone, telegraph, services n.e.c.; broadcasting; cable and pay TV
  '48': 'Telecom',
  '483': 'Media & Entertainment',
  '484': 'Media & Entertainment',
  // Electric, gas, water and steam; sanitary services (waste)
  '49': 'Utilities',
  '495': 'Industrials',
  // Wholesale trade; medical supplies and drugs wholesalers are health-care distributors; petroleum
  '50': 'Wholesale',
  '5047': 'Health Care Services',
  '51': 'Wholesale',
  '5122': 'Health Care Services',
  '517': 'Energy',
  // Retail trade; eating and drinking places
  '52': 'Retail',
  '53': 'Retail',
  '54': 'Retail',
  '55': 'Retail',
  '56': 'Retail',
  '57': 'Retail',
  '58': 'Restaurants',
  '59': 'Retail',
  // Depository institutions: commercial banks, savings institutions
  '60': 'Banks',
  // Non-depository credit: consumer and business credit, mortgage bankers, finance services
  '61': 'Other Financials',
  // Security and commodity brokers, dealers, exchanges; investment advice
  '62': 'Securities',
  '6282': 'Asset Management',
  // Insurance carriers; hospital and medical service plans (UnitedHealth, Elevance) are
  // health-care companies with a classified balance sheet, not insurers by their statements
  '63': 'Insurance',
  '6324': 'Health Care Services',
  // Real estate operators, lessors, agents, developers
  '65': 'Real Estate',
  // Management investment offices and unit investment trusts (funds)
  '672': 'Asset Management',
  // Oil and mineral royalty traders; real estate investment trusts
  '6792': 'Energy',
  '6795': 'Materials',
  '6798': 'REITs',
  // Hotels and lodging; personal services
  '70': 'Consumer Services',
  '72': 'Consumer Services',
  // Business services; advertising; computer programming, software, systems design and data
  // processing; 7370 (computer programming, data processing, etc.) is where Alphabet and Meta file
  '73': 'Industrials',
  '731': 'Media & Entertainment',
  '737': 'Software',
  '7370': 'Internet',
  // Automotive repair and parking; car rental and leasing
  '75': 'Consumer Services',
  '751': 'Transportation',
  // Miscellaneous repair services
  '76': 'Industrials',
  // Motion pictures and video (production, distribution, theatres, rental and streaming)
  '78': 'Media & Entertainment',
  // Amusement and recreation
  '79': 'Consumer Services',
  // Health services: doctors, nursing, hospitals, laboratories, home health
  '80': 'Health Care Services',
  // Legal services
  '81': 'Industrials',
  // Educational, social and membership services
  '82': 'Consumer Services',
  '83': 'Consumer Services',
  '86': 'Consumer Services',
  // Engineering, accounting, research and management services; commercial physical and
  // biological research (listed members are mostly biotechs, as KSIC 7011)
  '87': 'Industrials',
  '8731': 'Biotech',
  // Services n.e.c.
  '89': 'Industrials',
};

/**
 * The sector of a SIC code by longest prefix, or 'Unclassified' (blank, not a code, or no match).
 * A three-digit code is one whose leading zero was dropped (agriculture: `100` is 0100).
 */
export function sectorOfSic(sic: string): string {
  const text = sic.trim();
  if (!/^\d{3,4}$/.test(text)) return UNCLASSIFIED;
  const digits = text.padStart(4, '0');
  for (let len = 4; len >= 2; len--) {
    const sector = SIC_SECTORS[digits.slice(0, len)];
    if (sector !== undefined) return sector;
  }
  return UNCLASSIFIED;
}
