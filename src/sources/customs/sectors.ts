// HS code prefixes -> the export sectors the service reports. Korea's trade ministry defines
// its "15 major export items" on MTI codes, which the customs open API does not return; this
// table approximates them with HS (the API's hsCode is the 10-digit HSK code). Longest
// prefix wins; everything unmatched is 'Other'. Documented in docs/sources.md.

export const OTHER_SECTOR = 'Other';

export const SECTOR_HS_PREFIXES: Readonly<Record<string, readonly string[]>> = {
  Semiconductors: ['8541', '8542'],
  Automobiles: ['8702', '8703', '8704'],
  'Auto Parts': ['8706', '8707', '8708'],
  Shipbuilding: ['8901', '8902', '8903', '8904', '8905', '8906'],
  'Secondary Batteries': ['8507'],
  // 8524 (flat panel display modules) exists from HS 2022; earlier panels were 9013.80 / 8529.90.
  Displays: ['8524', '901380'],
  Petrochemicals: ['2901', '2902', '2903', '2904', '2905', '2907', '2909', '2917', '3901', '3902', '3903', '3904', '3905', '3906', '3907', '3908'],
  'Petroleum Products': ['2710'],
  Steel: ['72', '7301', '7302', '7303', '7304', '7305', '7306'],
  'Wireless Communication Devices': ['8517'],
  Computers: ['8471'],
  'Home Appliances': ['8415', '8418', '8450', '8451', '8516'],
  Textiles: ['50', '51', '52', '53', '54', '55', '56', '57', '58', '59', '60', '61', '62', '63'],
  Cosmetics: ['3304'],
  'Bio & Pharmaceuticals': ['3002', '3003', '3004'],
};

const PREFIXES: readonly [string, string][] = Object.entries(SECTOR_HS_PREFIXES)
  .flatMap(([sector, prefixes]) => prefixes.map((p) => [p, sector] as [string, string]))
  .sort((a, b) => b[0].length - a[0].length);

export function sectorOfHs(hsCode: string): string {
  const digits = hsCode.replace(/\D/g, '');
  for (const [prefix, sector] of PREFIXES) if (digits.startsWith(prefix)) return sector;
  return OTHER_SECTOR;
}
