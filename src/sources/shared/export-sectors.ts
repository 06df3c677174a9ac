// The one list of export sectors the service reports. Both sources produce rows with these
// names: the demo generator (src/sources/demo/trade.ts, whose share table is typed against
// this list) and the Korea Customs adapter (src/sources/customs/sectors.ts, which maps HS
// codes onto it). Keeping a single list means get_sector_exports ranks the same sectors
// whichever source is configured. Alphabetical; 'Other' takes whatever no sector claims.

export const OTHER_SECTOR = 'Other';

export const EXPORT_SECTORS = [
  'Agricultural Machinery',
  'Agricultural Products',
  'Aircraft and Parts',
  'Apparel',
  'Audio and Video Equipment',
  'Auto Parts',
  'Automobiles',
  'Ceramics',
  'Computers',
  'Construction Machinery',
  'Cosmetics',
  'Displays',
  'Electrical Equipment',
  'Electronic Components',
  'Fertilizers',
  'Fine Chemicals',
  'Fishery Products',
  'Footwear',
  'Furniture',
  'Game Consoles and Content',
  'Glass',
  'Home Appliances',
  'Jewelry',
  'Leather',
  'Machinery',
  'Medical Devices',
  'Metal Products',
  'Musical Instruments',
  'Nonferrous Metals',
  'Optical Equipment',
  OTHER_SECTOR,
  'Paper',
  'Petrochemicals',
  'Petroleum Products',
  'Pharmaceuticals',
  'Plastics',
  'Power Generation Equipment',
  'Precision Instruments',
  'Printed Matter',
  'Processed Food',
  'Railway Vehicles',
  'Robots',
  'Rubber Products',
  'Secondary Batteries',
  'Semiconductor Equipment',
  'Semiconductors',
  'Shipbuilding',
  'Solar Cells',
  'Sporting Goods',
  'Steel',
  'Synthetic Resins',
  'Textiles',
  'Tires',
  'Toys',
  'Wireless Communication Devices',
] as const;

export type ExportSector = (typeof EXPORT_SECTORS)[number];
/** The sectors a source must attribute explicitly; 'Other' is the remainder. */
export type NamedExportSector = Exclude<ExportSector, typeof OTHER_SECTOR>;
