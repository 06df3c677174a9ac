// SEC SIC codes (submissions' `sic`) of financial companies mapped to the service's financial
// sectors, so US banks, insurers, brokers and asset managers form the cohorts KR ones do and get
// the not-applicable rule of src/domain/financials.ts. Every other company keeps EDGAR's SIC
// description as its sector. Keep in sync with the table in docs/sources.md (sec section).

/** [first, last, sector] over SIC codes, first match wins; the exceptions come first. */
const FINANCIAL_SIC: ReadonlyArray<readonly [number, number, string | null]> = [
  // Hospital and medical service plans (UnitedHealth, Elevance): health-care companies with a
  // classified balance sheet, not insurers by their statements: keep the description.
  [6324, 6324, null],
  // Depository institutions: commercial banks, savings institutions, credit unions.
  [6000, 6099, 'Banks'],
  // Non-depository credit: consumer and business credit, mortgage bankers, asset-backed issuers.
  [6100, 6199, 'Other Financials'],
  // Investment advice.
  [6282, 6282, 'Asset Management'],
  // Security and commodity brokers, dealers, exchanges and services.
  [6200, 6299, 'Securities'],
  // Insurance carriers (life, accident and health, property and casualty, surety, title).
  [6300, 6399, 'Insurance'],
  // Management investment offices and unit investment trusts (funds).
  [6720, 6726, 'Asset Management'],
];

/** The financial sector of a SIC code; null for a code outside them (or not a code). */
export function financialSectorOfSic(sic: string): string | null {
  const text = sic.trim();
  if (!/^\d{4}$/.test(text)) return null;
  const code = Number(text);
  for (const [first, last, sector] of FINANCIAL_SIC) if (code >= first && code <= last) return sector;
  return null;
}
