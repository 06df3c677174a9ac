// CONSTRUCTED: the companyfacts of a foreign filer reporting in EUR, CAD, TWD... without a USD
// convenience translation. No such filer's companyfacts is recorded in this project (the recorded
// TSMC excerpt gives a USD translation; Globus reports in USD), so this document is written here in
// SEC's companyfacts layout for IFRS filers, the layout of those two recorded excerpts (`ifrs-full`
// facts in the reporting currency, each filing's comparatives in the same filing, dei cover
// shares). Read by test/sources/sec-ecb.test.ts and test/e2e/foreign-filers.test.ts.

const M = 1_000_000;

/** The CIK and ticker the e2e upstream lists it under (no real company has this CIK in the recorded ticker list). */
export const CONSTRUCTED_FILER = { cik: 999001, ticker: 'EURX', title: 'EXAMPLE FOREIGN FILER (constructed)' } as const;

type Fact = { start?: string; end: string; val: number; accn: string; fy: number; fp: string; form: string; filed: string };
/**
 * CONSTRUCTED: a foreign filer's companyfacts (20-F or 40-F FY2023 filed 2024-03-01 with FY2022 as its
 * comparative; a 6-K for Q1 2024 filed 2024-05-02 with Q1 2023) in `currency` (millions below).
 */
export function companyFacts(currency: string, annualForm: '20-F' | '40-F'): unknown {
  const annual = { accn: '0000999001-24-000001', fy: 2023, fp: 'FY', form: annualForm, filed: '2024-03-01' };
  const interim = { accn: '0000999001-24-000002', fy: 2024, fp: 'Q1', form: '6-K', filed: '2024-05-02' };
  const flow = (fy2022: number, fy2023: number, q12023: number, q12024: number): Fact[] => [
    { start: '2022-01-01', end: '2022-12-31', val: fy2022 * M, ...annual },
    { start: '2023-01-01', end: '2023-12-31', val: fy2023 * M, ...annual },
    { start: '2023-01-01', end: '2023-03-31', val: q12023 * M, ...interim },
    { start: '2024-01-01', end: '2024-03-31', val: q12024 * M, ...interim },
  ];
  const balance = (end2022: number, end2023: number, endQ1: number): Fact[] => [
    { end: '2022-12-31', val: end2022 * M, ...annual },
    { end: '2023-12-31', val: end2023 * M, ...annual },
    { end: '2023-12-31', val: end2023 * M, ...interim },
    { end: '2024-03-31', val: endQ1 * M, ...interim },
  ];
  const concept = (facts: Fact[]) => ({ label: null, description: null, units: { [currency]: facts } });
  return {
    cik: CONSTRUCTED_FILER.cik,
    entityName: CONSTRUCTED_FILER.title,
    facts: {
      dei: {
        EntityCommonStockSharesOutstanding: {
          label: null,
          description: null,
          units: { shares: [{ end: '2024-02-15', val: 400 * M, ...annual }, { end: '2024-04-30', val: 400 * M, ...interim }] },
        },
      },
      'ifrs-full': {
        Revenue: concept(flow(20_000, 24_000, 5_600, 6_300)),
        ProfitLossFromOperatingActivities: concept(flow(4_000, 5_000, 1_200, 1_300)),
        ProfitLossAttributableToOwnersOfParent: concept(flow(3_000, 3_600, 900, 950)),
        Assets: concept(balance(50_000, 60_000, 62_000)),
        EquityAttributableToOwnersOfParent: concept(balance(20_000, 25_000, 26_000)),
      },
    },
  };
}

