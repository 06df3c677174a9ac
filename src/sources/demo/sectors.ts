// Sector economics for the demo companies: the margins, capital intensity, working-capital
// days, leverage and valuation multiples that make a steel maker look like a steel maker and
// a software house like a software house. Ranges are rough central tendencies of listed
// companies in each industry, not data about any real company.

import type { Market } from '../../domain/model.js';

export interface SectorEconomics {
  /** Gross margin range (fraction of revenue). */
  grossMargin: readonly [number, number];
  /** Operating margin range in a normal year. */
  operatingMargin: readonly [number, number];
  /** Property, plant and equipment per unit of annual revenue. */
  fixedAssetIntensity: number;
  /** Inventory days (of cost of sales); 0 for services and financials. */
  inventoryDays: number;
  /** Receivable days (of revenue). */
  receivableDays: number;
  /** Interest-bearing debt per unit of annual revenue for a typical member. */
  leverage: number;
  /** Price/earnings range the market pays in a normal year. */
  per: readonly [number, number];
  /** Earnings swing with the industry cycle (memory chips, ships, petrochemicals...). */
  cyclical: boolean;
}

const e = (
  grossMargin: readonly [number, number],
  operatingMargin: readonly [number, number],
  fixedAssetIntensity: number,
  inventoryDays: number,
  receivableDays: number,
  leverage: number,
  per: readonly [number, number],
  cyclical = false,
): SectorEconomics => ({ grossMargin, operatingMargin, fixedAssetIntensity, inventoryDays, receivableDays, leverage, per, cyclical });

export const SECTOR_ECONOMICS: Record<string, SectorEconomics> = {
  Semiconductors: e([0.35, 0.55], [0.15, 0.32], 1.0, 90, 50, 0.2, [8, 20], true),
  Automobiles: e([0.15, 0.22], [0.05, 0.09], 0.4, 45, 30, 0.4, [5, 10]),
  'Auto Parts': e([0.12, 0.18], [0.03, 0.07], 0.4, 40, 50, 0.3, [5, 10]),
  Shipbuilding: e([0.06, 0.12], [0.03, 0.08], 0.5, 30, 60, 0.4, [9, 20], true),
  'Secondary Batteries': e([0.12, 0.25], [0.05, 0.12], 1.0, 80, 60, 0.5, [20, 40]),
  Displays: e([0.08, 0.2], [0.03, 0.1], 1.2, 50, 50, 0.4, [6, 15], true),
  Chemicals: e([0.12, 0.25], [0.05, 0.13], 0.7, 50, 50, 0.3, [6, 14], true),
  Steel: e([0.08, 0.15], [0.04, 0.1], 0.8, 70, 45, 0.3, [5, 10], true),
  Banks: e([0.5, 0.7], [0.25, 0.4], 0.1, 0, 10, 3.0, [4, 8]),
  Insurance: e([0.15, 0.25], [0.06, 0.12], 0.05, 0, 20, 0.5, [5, 10]),
  Securities: e([0.4, 0.6], [0.15, 0.3], 0.05, 0, 60, 2.0, [5, 10], true),
  Biotech: e([0.4, 0.7], [0.05, 0.18], 0.5, 120, 70, 0.2, [25, 40]),
  Pharmaceuticals: e([0.4, 0.7], [0.08, 0.2], 0.4, 120, 70, 0.2, [15, 30]),
  Software: e([0.6, 0.85], [0.12, 0.3], 0.1, 0, 60, 0.1, [20, 38]),
  Internet: e([0.5, 0.7], [0.1, 0.25], 0.3, 0, 30, 0.1, [18, 35]),
  Hardware: e([0.35, 0.45], [0.15, 0.28], 0.2, 15, 40, 0.3, [15, 28]),
  Telecom: e([0.4, 0.6], [0.08, 0.15], 1.2, 10, 40, 0.6, [8, 14]),
  Utilities: e([0.1, 0.3], [0.05, 0.12], 2.5, 20, 40, 1.2, [10, 18]),
  Construction: e([0.07, 0.12], [0.03, 0.07], 0.15, 30, 80, 0.3, [4, 9]),
  Retail: e([0.25, 0.35], [0.02, 0.06], 0.4, 45, 10, 0.3, [8, 18]),
  'Food & Beverage': e([0.25, 0.4], [0.05, 0.1], 0.5, 50, 40, 0.3, [10, 20]),
  'Media & Entertainment': e([0.3, 0.5], [0.05, 0.15], 0.2, 5, 60, 0.2, [15, 32]),
  Transportation: e([0.1, 0.2], [0.04, 0.1], 1.0, 10, 30, 0.8, [6, 14], true),
  Machinery: e([0.18, 0.28], [0.05, 0.1], 0.4, 80, 70, 0.3, [8, 18]),
  Energy: e([0.08, 0.2], [0.03, 0.1], 0.6, 30, 30, 0.4, [5, 12], true),
  Cosmetics: e([0.55, 0.75], [0.08, 0.18], 0.3, 90, 40, 0.1, [15, 30]),
  Games: e([0.5, 0.8], [0.15, 0.32], 0.15, 0, 40, 0.05, [12, 28]),
  REITs: e([0.55, 0.7], [0.35, 0.5], 8.0, 0, 10, 4.0, [12, 25]),
  Defense: e([0.15, 0.25], [0.06, 0.12], 0.4, 100, 80, 0.3, [15, 30]),
  'Electronic Components': e([0.15, 0.3], [0.06, 0.15], 0.6, 60, 60, 0.3, [8, 18], true),
  'Textiles & Apparel': e([0.25, 0.45], [0.04, 0.1], 0.3, 100, 40, 0.3, [6, 12]),
  'Medical Devices': e([0.55, 0.7], [0.15, 0.25], 0.3, 150, 55, 0.4, [20, 35]),
  'Asset Management': e([0.6, 0.75], [0.3, 0.4], 0.1, 0, 50, 0.5, [10, 18]),
  'Aerospace & Defense': e([0.18, 0.28], [0.08, 0.14], 0.3, 90, 60, 0.4, [15, 25]),
  Restaurants: e([0.3, 0.4], [0.12, 0.2], 0.8, 5, 5, 0.6, [18, 30]),
  'Household Products': e([0.4, 0.5], [0.15, 0.22], 0.4, 60, 30, 0.4, [18, 28]),
  'Health Care Services': e([0.15, 0.25], [0.04, 0.08], 0.2, 5, 40, 0.3, [12, 20]),
};

/** Financial sectors: no loss-making, negative-equity or debt-free members in the demo. */
export const FINANCIAL_SECTORS = new Set(['Banks', 'Insurance', 'Securities', 'Asset Management', 'REITs']);

export interface MarketSector {
  name: string;
  /** Relative frequency among all companies of the market. */
  weight: number;
  /** Relative frequency among the mega and extra-large companies. */
  bigWeight: number;
  /** Words that end a company name in this sector. */
  words: readonly string[];
}

const s = (name: string, weight: number, bigWeight: number, words: readonly string[]): MarketSector => ({ name, weight, bigWeight, words });

export const MARKET_SECTORS: Record<Market, readonly MarketSector[]> = {
  KR: [
    s('Semiconductors', 8, 6, ['Semicon', 'Semiconductor', 'Micro', 'Silicon']),
    s('Automobiles', 2, 4, ['Motors', 'Motor Company']),
    s('Auto Parts', 6, 1, ['Autotech', 'Automotive', 'Auto Systems']),
    s('Shipbuilding', 2, 3, ['Heavy Industries', 'Shipbuilding', 'Marine']),
    s('Secondary Batteries', 5, 4, ['Battery', 'Cell Materials', 'Energy Materials']),
    s('Displays', 3, 1, ['Display', 'Optronics']),
    s('Chemicals', 6, 3, ['Chemical', 'Petrochem', 'Fine Chemical']),
    s('Steel', 4, 2, ['Steel', 'Metal']),
    s('Banks', 2, 4, ['Financial Group', 'Bank']),
    s('Insurance', 2, 2, ['Life', 'Fire & Marine', 'Insurance']),
    s('Securities', 2, 1, ['Securities', 'Investment']),
    s('Biotech', 10, 3, ['Bio', 'Biologics', 'Therapeutics', 'Genetics']),
    s('Pharmaceuticals', 6, 1, ['Pharm', 'Pharmaceutical']),
    s('Software', 5, 1, ['Soft', 'Systems', 'Data']),
    s('Internet', 3, 3, ['Net', 'Online', 'Platform']),
    s('Telecom', 1, 2, ['Telecom', 'Networks']),
    s('Utilities', 1, 2, ['Power', 'City Gas']),
    s('Construction', 4, 1, ['E&C', 'Construction', 'Engineering']),
    s('Retail', 3, 1, ['Mart', 'Retail', 'Department Store']),
    s('Food & Beverage', 4, 1, ['Foods', 'F&B', 'Beverage']),
    s('Media & Entertainment', 4, 1, ['Entertainment', 'Media', 'Studio']),
    s('Transportation', 3, 1, ['Logistics', 'Shipping', 'Airlines', 'Express']),
    s('Machinery', 6, 1, ['Machinery', 'Precision', 'Industrial']),
    s('Energy', 2, 2, ['Oil', 'Energy', 'Petroleum']),
    s('Cosmetics', 3, 1, ['Cosmetics', 'Beauty']),
    s('Games', 3, 1, ['Games', 'Interactive', 'Play']),
    s('REITs', 1, 0, ['REIT']),
    s('Defense', 2, 2, ['Aerospace', 'Defense Systems']),
    s('Electronic Components', 6, 2, ['Electro-Mechanics', 'Electronics', 'Components']),
    s('Textiles & Apparel', 3, 0, ['Textile', 'Fashion', 'Spinning']),
  ],
  US: [
    s('Semiconductors', 5, 6, ['Semiconductor', 'Microdevices', 'Silicon']),
    s('Software', 8, 6, ['Software', 'Systems', 'Analytics']),
    s('Internet', 4, 5, ['Interactive', 'Digital', 'Online']),
    s('Hardware', 3, 3, ['Computing', 'Devices', 'Technologies']),
    s('Biotech', 9, 2, ['Therapeutics', 'Biosciences', 'Genomics', 'Bio']),
    s('Pharmaceuticals', 3, 4, ['Pharmaceuticals', 'Laboratories']),
    s('Medical Devices', 4, 2, ['Medical', 'Surgical', 'Diagnostics']),
    s('Health Care Services', 2, 2, ['Health', 'Care']),
    s('Banks', 6, 4, ['Bancorp', 'Financial', 'Bank']),
    s('Insurance', 3, 2, ['Insurance', 'Assurance']),
    s('Asset Management', 2, 2, ['Capital', 'Asset Management', 'Investments']),
    s('Automobiles', 1, 1, ['Motors', 'Automotive']),
    s('Energy', 4, 3, ['Energy', 'Petroleum', 'Resources']),
    s('Utilities', 3, 2, ['Power', 'Electric', 'Utilities']),
    s('Telecom', 1, 2, ['Communications', 'Wireless']),
    s('Retail', 4, 3, ['Stores', 'Retail', 'Outfitters']),
    s('Food & Beverage', 3, 2, ['Foods', 'Brands', 'Beverage']),
    s('Media & Entertainment', 3, 2, ['Media', 'Entertainment', 'Studios']),
    s('Transportation', 3, 1, ['Logistics', 'Freight', 'Airlines', 'Rail']),
    s('Machinery', 4, 2, ['Industries', 'Machinery', 'Equipment']),
    s('Aerospace & Defense', 2, 2, ['Aerospace', 'Defense']),
    s('Chemicals', 3, 1, ['Chemical', 'Materials']),
    s('REITs', 4, 1, ['Realty', 'Properties', 'REIT']),
    s('Construction', 2, 0, ['Builders', 'Construction', 'Homes']),
    s('Restaurants', 2, 1, ['Kitchen', 'Restaurants', 'Grill']),
    s('Household Products', 2, 2, ['Home Products', 'Consumer']),
    s('Games', 2, 1, ['Games', 'Interactive Entertainment']),
    s('Steel', 1, 0, ['Steel', 'Metals']),
  ],
};
