// HS code prefixes -> the export sectors the service reports (the shared list in
// ../shared/export-sectors.ts, which the demo uses too). Korea's trade ministry defines its
// export items on MTI codes, which the customs open API does not return; this table
// approximates them with HS 2022 chapters (2 digits), headings (4) and subheadings (6). The
// API's hsCode is the 10-digit HSK code, so the longest matching prefix wins: a subheading
// carves its sector out of a heading, a heading out of a chapter ("residual" below means the
// chapter minus what longer prefixes claim). Unmatched codes are 'Other'. Codes of months
// before HS 2022 follow the older nomenclature: where a 2022 subheading did not exist yet
// (8524 displays, 854142/854143 solar cells) those goods land in the older heading's sector.
// Documented in docs/sources.md.

import { EXPORT_SECTORS, type NamedExportSector, OTHER_SECTOR } from '../shared/export-sectors.js';

export { EXPORT_SECTORS, OTHER_SECTOR };

/** `from`..`to` as zero-padded codes of the same width (headings 3901..3914 -> '3901', ..., '3914'). */
function span(from: string, to: string): string[] {
  const out: string[] = [];
  for (let n = Number(from); n <= Number(to); n++) out.push(String(n).padStart(from.length, '0'));
  return out;
}

export const SECTOR_HS_PREFIXES: Readonly<Record<NamedExportSector, readonly string[]>> = {
  // --- Food and agriculture ---
  // Ch. 01-02 live animals, meat; 04-15 dairy, plants, vegetables, fruit, coffee, cereals,
  // seeds, fats. Ch. 03 is fishery.
  'Agricultural Products': ['01', '02', ...span('04', '15')],
  // Ch. 03 fish and crustaceans; 1212.21/29 seaweeds (dried laver, Korea's largest marine
  // export, sits in ch. 12 but Korean statistics count it as a fishery product).
  'Fishery Products': ['03', '121221', '121229'],
  // Ch. 16-22 meat/fish preparations, sugar, cocoa, cereal, vegetable and miscellaneous
  // preparations, beverages; 23 feed and food-industry residues; 24 tobacco (cigarettes are
  // counted with processed food in Korea's agri-food export statistics).
  'Processed Food': [...span('16', '24')],

  // --- Chemicals ---
  // 2710 petroleum oils; 2711.12, .13, .19 liquefied propane, butanes and other LPG (not
  // 2711.11/21 natural gas, nor 2711.14 olefins); 2712 petroleum jelly and paraffin wax;
  // 2713 petroleum coke and bitumen.
  'Petroleum Products': ['2710', '271112', '271113', '271119', '2712', '2713'],
  // Basic petrochemicals: 2711.14 liquefied ethylene, propylene, butylene and butadiene;
  // 2901-2902 olefins and aromatics, 2903 halogenated (VCM), 2904, 2905 alcohols, 2907 phenols, 2909 ethers, 2910 epoxides (EO, PO), 2915-2916
  // acetic and acrylic acids, 2917 polycarboxylic acids (PTA), 2926 nitriles (acrylonitrile),
  // 2929.10 isocyanates (MDI, TDI); 4002 synthetic rubber. Resins (3901-3914) are separate.
  Petrochemicals: ['271114', '2901', '2902', '2903', '2904', '2905', '2907', '2909', '2910', '2915', '2916', '2917', '2926', '292910', '4002'],
  // 3001-3006 pharmaceutical products (biologics 3002, medicaments 3003-3004).
  Pharmaceuticals: span('3001', '3006'),
  // Ch. 31.
  Fertilizers: ['31'],
  // 3303 perfumes, 3304 beauty and skin care, 3305 hair preparations, 3307 shaving, bath and
  // deodorant preparations (3306 oral hygiene stays a fine chemical).
  Cosmetics: ['3303', '3304', '3305', '3307'],
  // Ch. 29-38 residual: organic chemicals beyond the petrochemicals above, dyes and paints
  // (32), essential oils (33 residual), soaps (34), glues and enzymes (35), explosives (36),
  // photographic (37), miscellaneous chemical products (38). Ch. 28 (inorganic) is 'Other'.
  'Fine Chemicals': ['29', '32', '33', '34', '35', '36', '37', '38'],
  // 3901-3914 plastics in primary forms (PE, PP, PS, PVC, ABS, PET, ...).
  'Synthetic Resins': span('3901', '3914'),
  // 3916-3926 semi-manufactures and articles of plastics (3915 is scrap: 'Other').
  Plastics: span('3916', '3926'),
  // 4011 new pneumatic tyres, 4012 retreaded and used, 4013 inner tubes.
  Tires: ['4011', '4012', '4013'],
  // Ch. 40 residual (natural rubber, rubber articles, belts, hoses, gloves).
  'Rubber Products': ['40'],

  // --- Light industry ---
  // Ch. 41 hides, 42 leather articles and handbags, 43 furskins.
  Leather: ['41', '42', '43'],
  // Ch. 47 pulp, 48 paper and paperboard.
  Paper: ['47', '48'],
  // Ch. 49 books, newspapers, printed matter.
  'Printed Matter': ['49'],
  // Ch. 50-60 fibres, yarns and fabrics; 63 made-up textile articles.
  Textiles: [...span('50', '60'), '63'],
  // Ch. 61 knitted and 62 woven apparel.
  Apparel: ['61', '62'],
  // Ch. 64.
  Footwear: ['64'],
  // Ch. 69 ceramic products.
  Ceramics: ['69'],
  // Ch. 70 glass and glassware.
  Glass: ['70'],
  // Ch. 71 precious stones and metals, jewellery (including unwrought gold and silver).
  Jewelry: ['71'],
  // Ch. 94 furniture, bedding, lamps, prefabricated buildings.
  Furniture: ['94'],
  // 9503 toys.
  Toys: ['9503'],
  // 9504 video game consoles, table and arcade games.
  'Game Consoles and Content': ['9504'],
  // 9506 sports equipment, 9507 fishing tackle.
  'Sporting Goods': ['9506', '9507'],
  // Ch. 92.
  'Musical Instruments': ['92'],

  // --- Metals ---
  // Ch. 72 iron and steel; 7301-7306 sheet piling, rails, tubes and pipes.
  Steel: ['72', ...span('7301', '7306')],
  // Ch. 74 copper, 75 nickel, 76 aluminium, 78 lead, 79 zinc, 80 tin, 81 other base metals.
  'Nonferrous Metals': ['74', '75', '76', '78', '79', '80', '81'],
  // Ch. 73 residual (structures, containers, fasteners, ...), 82 tools, 83 misc. base-metal articles.
  'Metal Products': ['73', '82', '83'],

  // --- Machinery (ch. 84) ---
  // 8401-8411 reactors, boilers, engines and turbines (minus the vehicle and aircraft
  // engines claimed below); 8501 motors and generators, 8502 generating sets.
  'Power Generation Equipment': [...span('8401', '8411'), '8501', '8502'],
  // 8429 bulldozers, graders, excavators; 8430 other earth-moving and boring machinery;
  // 8431.41-49 their buckets, blades and parts.
  'Construction Machinery': ['8429', '8430', '843141', '843142', '843143', '843149'],
  // 8432-8437 soil, harvesting, dairy, poultry and grain machinery; 8701 tractors other than
  // road tractors (agricultural tractors are 8701.91-95, single-axle 8701.10).
  'Agricultural Machinery': [...span('8432', '8437'), '8701'],
  // 8471 computers; 8473.30 their parts; 8523.51 solid-state storage (SSDs).
  Computers: ['8471', '847330', '852351'],
  // 8486 machines for semiconductor, wafer and flat-panel manufacture.
  'Semiconductor Equipment': ['8486'],
  // 8479.50 industrial robots.
  Robots: ['847950'],
  // Household: 8415 air conditioners, 8418 refrigerators, 8422.11 dishwashers, 8450 washing
  // machines, 8451 dryers, 8508 vacuum cleaners, 8509 kitchen appliances, 8510 shavers,
  // 8516 water heaters, hair dryers, microwave and other ovens (8516.80 is Electrical Equipment).
  'Home Appliances': ['8415', '8418', '842211', '8450', '8451', '8508', '8509', '8510', '8516'],
  // Ch. 84 residual (pumps, compressors, machine tools, bearings, valves, ...).
  Machinery: ['84'],

  // --- Electrical and electronic (ch. 85) ---
  // 8541 discrete semiconductors, 8542 integrated circuits.
  Semiconductors: ['8541', '8542'],
  // 8541.42 photovoltaic cells, 8541.43 cells assembled in modules (HS 2022; earlier in 8541.40).
  'Solar Cells': ['854142', '854143'],
  // 8507 accumulators (lithium-ion, lead-acid) and their parts.
  'Secondary Batteries': ['8507'],
  // 8524 flat panel display modules (HS 2022+); 9013.80 the earlier home of LCD panels.
  Displays: ['8524', '901380'],
  // 8517 telephones, smartphones, network equipment and parts.
  'Wireless Communication Devices': ['8517'],
  // 8518-8528 (except 8524): speakers, recorders, media, cameras and transmitters, radar and
  // navigation, radios, monitors and TVs; 8529 their parts. (8520 no longer exists.)
  'Audio and Video Equipment': ['8518', '8519', '8521', '8522', '8523', '8525', '8526', '8527', '8528', '8529'],
  // 8532 capacitors (MLCC), 8533 resistors, 8534 printed circuits, 8540 tubes.
  'Electronic Components': ['8532', '8533', '8534', '8540'],
  // 8503 motor parts, 8504 transformers and converters, 8505 magnets, 8506 primary cells;
  // 8511-8515 ignition, vehicle lighting, lamps, furnaces, welding; 8516.80 heating
  // resistors (the rest of 8516 is household); 8530-8531 signalling;
  // 8535-8538 switchgear and connectors; 8539 lamps and LEDs; 8543 other electrical
  // machines; 8544 wire and cable; 8545-8548 electrodes, insulators, electrical parts.
  'Electrical Equipment': [
    '8503', '8504', '8505', '8506', ...span('8511', '8515'), '851680', '8530', '8531',
    ...span('8535', '8539'), '8543', '8544', '8545', '8546', '8547', '8548',
  ],

  // --- Transport equipment (ch. 86-89) ---
  // 8702 buses, 8703 cars, 8704 trucks, 8705 special-purpose vehicles; 8701.20/21-29 road
  // tractors for semi-trailers (870120 before HS 2022, split by engine type since).
  Automobiles: ['8702', '8703', '8704', '8705', '870120', '870121', '870122', '870123', '870124', '870129'],
  // 8706 chassis, 8707 bodies, 8708 parts; 8407.31-34 spark-ignition and 8408.20 diesel
  // engines for the vehicles of ch. 87.
  'Auto Parts': ['8706', '8707', '8708', '840731', '840732', '840733', '840734', '840820'],
  // Ch. 86 locomotives, rolling stock, track fixtures.
  'Railway Vehicles': ['86'],
  // Ch. 88 aircraft, spacecraft, parts; 8407.10 aircraft piston engines; 8411.11-22
  // turbojets and turbopropellers and 8411.91 their parts.
  'Aircraft and Parts': ['88', '840710', '841111', '841112', '841121', '841122', '841191'],
  // 8901-8906 ships, tugs, dredgers, floating and drilling platforms, warships.
  Shipbuilding: span('8901', '8906'),

  // --- Instruments (ch. 90-91) ---
  // 9001-9013 fibres and lenses, spectacles, binoculars, cameras, projectors, microscopes,
  // lasers (9013.80 is Displays).
  'Optical Equipment': span('9001', '9013'),
  // 9018 medical and dental instruments, 9019 therapy, 9020 breathing, 9021 orthopaedic and
  // implants, 9022 X-ray and CT.
  'Medical Devices': span('9018', '9022'),
  // 9014-9017 navigation, surveying, balances, measuring instruments; 9024-9033 testing,
  // gauges, analysers, meters, oscilloscopes, inspection and control instruments; ch. 91 clocks
  // and watches.
  'Precision Instruments': [...span('9014', '9017'), ...span('9024', '9033'), '91'],
};

const PREFIXES: readonly [string, string][] = Object.entries(SECTOR_HS_PREFIXES)
  .flatMap(([sector, prefixes]) => prefixes.map((p) => [p, sector] as [string, string]))
  .sort((a, b) => b[0].length - a[0].length);

export function sectorOfHs(hsCode: string): string {
  const digits = hsCode.replace(/\D/g, '');
  for (const [prefix, sector] of PREFIXES) if (digits.startsWith(prefix)) return sector;
  return OTHER_SECTOR;
}
