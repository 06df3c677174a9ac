// Parsers for SEC EDGAR: company_tickers.json, the XBRL companyfacts API
// (data.sec.gov/api/xbrl/companyfacts/CIK##########.json), submissions (for SIC and fiscal
// year end) and the daily form index (for incremental runs).
//
// Quirk handled here: fy/fp on a fact belong to the FILING, not to the fact's own period. A
// 10-Q carries prior-year comparatives tagged with the filing's fy/fp, and a Q2 10-Q carries
// both the three-month and the six-month figure. So per filing (accn) we take the period end
// of the filing and, for flows, the fact ending there whose duration matches the fiscal
// period year-to-date (Q1 ~3 months, Q2 ~6, Q3 ~9, FY ~12).

import { FLOW_ITEMS, type FinancialReport, type FiscalQuarter, type FormerName, type ReferenceConversion, type Security } from '../../domain/model.js';
import { formerNameSpans } from '../../domain/listings.js';
import { splitRatioOf } from '../../domain/price-change.js';
import { periodAverage, rateOnOrBefore, type UsdSeries } from '../../domain/reference-rates.js';
import { addDays, daysBetween, isRecord, str } from '../shared/parse.js';
import { adsRatioOf, listedShares } from '../../domain/ads.js';
import { isFinancialSector } from '../../domain/financials.js';
import { sectorOfSic } from './sectors.js';

export const SOURCE_NAME = 'sec';
/** The key of SEC's one rate limiter in a process (`RateLimiter.shared`): its 10 a second is per client, across sec.gov and data.sec.gov. */
export const SEC_UPSTREAM = 'sec.gov';

export interface TickerEntry {
  cik: number;
  ticker: string;
  title: string;
}

/** `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}`; tickers use '.' for classes (BRK-B -> BRK.B). */
export function parseCompanyTickers(body: unknown): TickerEntry[] | null {
  if (!isRecord(body)) return null;
  const out: TickerEntry[] = [];
  for (const v of Object.values(body)) {
    if (!isRecord(v)) continue;
    const cik = Number(v['cik_str']);
    const ticker = str(v, 'ticker').trim().toUpperCase().replace(/-/g, '.');
    if (!Number.isInteger(cik) || cik <= 0 || ticker === '') continue;
    out.push({ cik, ticker, title: str(v, 'title').trim() });
  }
  return out;
}

export const cik10 = (cik: number): string => String(cik).padStart(10, '0');

export interface Fact {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy: number | null;
  fp: string;
  form: string;
  filed: string;
}

/** Periodic forms of domestic filers (quarterly and annual). */
const DOMESTIC_FORMS = new Set(['10-Q', '10-K', '10-Q/A', '10-K/A']);
/**
 * Periodic forms of foreign private issuers: the annual 20-F (or 40-F, Canadian filers under the
 * multijurisdictional system) and the 6-K that carries interim statements where the filer tags them.
 */
const FOREIGN_FORMS = new Set(['20-F', '20-F/A', '40-F', '40-F/A', '6-K', '6-K/A']);
const FORMS = new Set([...DOMESTIC_FORMS, ...FOREIGN_FORMS]);

/**
 * A concept's facts in one unit. `concept` names a us-gaap concept, or another taxonomy's with its
 * prefix (`ifrs-full:Revenue`).
 */
function facts(body: Record<string, unknown>, name: string, unit: string): Fact[] {
  const [taxonomy, concept] = splitConcept(name);
  const tax = body['facts'];
  if (!isRecord(tax) || !isRecord(tax[taxonomy])) return [];
  const c = (tax[taxonomy] as Record<string, unknown>)[concept];
  if (!isRecord(c) || !isRecord(c['units'])) return [];
  const list = (c['units'] as Record<string, unknown>)[unit];
  if (!Array.isArray(list)) return [];
  const out: Fact[] = [];
  for (const f of list) {
    if (!isRecord(f) || typeof f['val'] !== 'number' || typeof f['end'] !== 'string') continue;
    const form = str(f, 'form');
    if (!FORMS.has(form)) continue;
    out.push({
      start: typeof f['start'] === 'string' ? f['start'] : undefined,
      end: f['end'],
      val: f['val'],
      accn: str(f, 'accn'),
      fy: typeof f['fy'] === 'number' ? f['fy'] : null,
      fp: str(f, 'fp'),
      form,
      filed: str(f, 'filed'),
    });
  }
  return out;
}

/** A concept's facts in every unit it is filed in (a borrowing in EUR and JPY besides USD). */
function factsInEveryUnit(body: Record<string, unknown>, name: string): Fact[] {
  const [taxonomy, concept] = splitConcept(name);
  const tax = body['facts'];
  if (!isRecord(tax) || !isRecord(tax[taxonomy])) return [];
  const c = (tax[taxonomy] as Record<string, unknown>)[concept];
  if (!isRecord(c) || !isRecord(c['units'])) return [];
  return Object.keys(c['units']).flatMap((unit) => facts(body, name, unit));
}

/** `ifrs-full:Revenue` -> [`ifrs-full`, `Revenue`]; a name without a prefix is us-gaap's. */
function splitConcept(name: string): [string, string] {
  const at = name.indexOf(':');
  return at < 0 ? ['us-gaap', name] : [name.slice(0, at), name.slice(at + 1)];
}

type Item = Exclude<keyof FinancialReport, 'market' | 'code' | 'fiscalYear' | 'fiscalQuarter' | 'periodEnd' | 'disclosedOn' | 'consolidated' | 'source'>;

/**
 * Concepts per item, first present IN THE FILING wins: companies move items between
 * concepts over the years (Apple's revenue: SalesRevenueNet to 2018, then
 * RevenueFromContractWithCustomerExcludingAssessedTax; capex: PaymentsToAcquireProductiveAssets
 * to 2014), so a concept that stops being filed must not blank the item from then on. us-gaap
 * concepts first, then the IFRS ones (`ifrs-full:`) that foreign private issuers file on 20-F/40-F.
 */
const FLOW_CONCEPTS: Partial<Record<Item, readonly string[]>> = {
  revenue: ['Revenues', 'RevenueFromContractWithCustomerExcludingAssessedTax', 'SalesRevenueNet', 'RevenueFromContractWithCustomerIncludingAssessedTax', 'ifrs-full:Revenue', 'ifrs-full:RevenueFromContractsWithCustomers'],
  costOfSales: ['CostOfRevenue', 'CostOfGoodsAndServicesSold', 'CostOfGoodsSold', 'ifrs-full:CostOfSales'],
  operatingIncome: ['OperatingIncomeLoss', 'ifrs-full:ProfitLossFromOperatingActivities'],
  // IFRS: to the owners of the parent; else to its ordinary equity holders (the EPS numerator); else the
  // profit of the whole group, which is the owners' where there is no non-controlling interest.
  netIncome: ['NetIncomeLoss', 'ifrs-full:ProfitLossAttributableToOwnersOfParent', 'ifrs-full:ProfitLossAttributableToOrdinaryEquityHoldersOfParentEntity', 'ifrs-full:ProfitLoss'],
  operatingCashFlow: ['NetCashProvidedByUsedInOperatingActivities', 'NetCashProvidedByUsedInOperatingActivitiesContinuingOperations', 'ifrs-full:CashFlowsFromUsedInOperatingActivities'],
  capex: ['PaymentsToAcquirePropertyPlantAndEquipment', 'PaymentsToAcquireProductiveAssets', 'ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities', 'ifrs-full:PurchaseOfPropertyPlantAndEquipment'],
  // InterestAndDebtExpense after the interest concepts: interest with the other costs of debt (the
  // amortization of issuance costs), the income statement's line of a filer that tags no narrower one
  // (AppLovin to 2024).
  interestExpense: ['InterestExpense', 'InterestExpenseNonoperating', 'InterestExpenseDebt', 'InterestAndDebtExpense', 'ifrs-full:InterestExpense', 'ifrs-full:FinanceCosts'],
};

const BALANCE_CONCEPTS: Partial<Record<Item, readonly string[]>> = {
  totalAssets: ['Assets', 'ifrs-full:Assets'],
  currentAssets: ['AssetsCurrent', 'ifrs-full:CurrentAssets'],
  totalLiabilities: ['Liabilities', 'ifrs-full:Liabilities'],
  currentLiabilities: ['LiabilitiesCurrent', 'ifrs-full:CurrentLiabilities'],
  equity: ['StockholdersEquity', 'ifrs-full:EquityAttributableToOwnersOfParent', 'ifrs-full:Equity'],
  cash: ['CashAndCashEquivalentsAtCarryingValue', 'ifrs-full:CashAndCashEquivalents'],
  // AccountsReceivableNet: the same right to consideration from customers, without the current
  // classification (SoundHound tags its current-assets line with it); read after the current one.
  // ReceivablesNetCurrent last: the balance sheet's total receivables line of a filer that tags no
  // customer-receivables line (Costco's "receivables, net", Exxon Mobil's "notes and accounts
  // receivable"), the figure a DSO takes where the balance sheet states no narrower one.
  receivables: ['AccountsReceivableNetCurrent', 'AccountsReceivableNet', 'ifrs-full:TradeAndOtherCurrentReceivables', 'ifrs-full:CurrentTradeReceivables', 'ReceivablesNetCurrent'],
  inventory: ['InventoryNet', 'ifrs-full:Inventories'],
  payables: ['AccountsPayableCurrent', 'ifrs-full:TradeAndOtherCurrentPayables', 'ifrs-full:TradeAndOtherCurrentPayablesToTradeSuppliers'],
};

/**
 * Debt concepts (see `debtOf`). The same figure is filed under different concepts by different
 * companies and years, and `LongTermDebt` means the total including current maturities for some
 * (Apple) and the non-current part for others (Tesla, beside DebtCurrent).
 */
export const DEBT_CONCEPTS = [
  'DebtCurrent', 'LongTermDebtCurrent', 'LongTermDebtNoncurrent', 'LongTermDebt',
  'ShortTermBorrowings', 'ShortTermBankLoansAndNotesPayable', 'CommercialPaper', 'OtherShortTermBorrowings', 'LinesOfCreditCurrent',
  'ConvertibleDebtCurrent', 'ConvertibleNotesPayableCurrent',
  'ConvertibleDebtNoncurrent', 'ConvertibleLongTermNotesPayable', 'LongTermNotesPayable', 'SeniorLongTermNotes', 'OtherLongTermDebtNoncurrent', 'LongTermLineOfCredit',
  'LongTermDebtAndCapitalLeaseObligationsCurrent', 'LongTermDebtAndCapitalLeaseObligations',
] as const;
/**
 * IFRS borrowings (see `ifrsDebtOf`): the total where filed, else its current and non-current
 * parts, with bonds issued where the filer shows them apart from its borrowings.
 */
const IFRS_DEBT_CONCEPTS = [
  'ifrs-full:Borrowings', 'ifrs-full:CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings', 'ifrs-full:ShorttermBorrowings', 'ifrs-full:CurrentPortionOfLongtermBorrowings',
  'ifrs-full:NoncurrentPortionOfNoncurrentBorrowings', 'ifrs-full:LongtermBorrowings', 'ifrs-full:BondsIssued', 'ifrs-full:CurrentPortionOfNoncurrentBondsIssued', 'ifrs-full:NoncurrentPortionOfNoncurrentBondsIssued',
] as const;
/**
 * Fallbacks for a filer that tags its parent's net income or equity only as the consolidated total
 * (`ProfitLoss`, `StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest`, as Broadcom,
 * Procter & Gamble, UnitedHealth and Visa do in recent filings): the total less the non-controlling
 * interest's share where the filing tags it, the total itself where it does not (no non-controlling
 * interest), as the IFRS `ProfitLoss` fallback.
 */
const CONSOLIDATED_NET_INCOME = { total: 'ProfitLoss', nci: 'NetIncomeLossAttributableToNoncontrollingInterest' } as const;
const CONSOLIDATED_EQUITY = { total: 'StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest', nci: 'MinorityInterest' } as const;
/**
 * The balance sheet's cash line tagged with the cash-flow statement's total (ASU 2016-18), as a filer
 * without restricted cash does (Procter & Gamble from its FY2020 second quarter on): taken as cash where the filing tags no
 * `CashAndCashEquivalentsAtCarryingValue` and no positive restricted cash at the date.
 */
export const CASH_WITH_RESTRICTED = 'CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents';
export const RESTRICTED_CASH = [
  'RestrictedCash', 'RestrictedCashCurrent', 'RestrictedCashNoncurrent', 'RestrictedCashAndCashEquivalents',
  'RestrictedCashAndCashEquivalentsAtCarryingValue', 'RestrictedCashAndCashEquivalentsNoncurrent', 'RestrictedCashAndInvestmentsCurrent',
] as const;

/** Concepts that show a company has debt; a debt of 0 beside a positive one of these is not believed. */
const DEBT_EVIDENCE = ['DebtInstrumentCarryingAmount', 'DebtLongtermAndShorttermCombinedAmount', 'LongTermDebt', 'ConvertibleNotesPayable', 'SeniorNotes'] as const;

/**
 * Every concept that states an amount of borrowings, read or not by `debtOf`: a filer's history of
 * these is the first signal of `debtProvenZero` (docs/calculations.md, "Debt"). Leases are not debt
 * here (`OperatingLeaseLiability`, `FinanceLeaseLiability` are not in it).
 */
const DEBT_HISTORY_CONCEPTS = [
  ...DEBT_CONCEPTS, ...DEBT_EVIDENCE, ...IFRS_DEBT_CONCEPTS,
  'DebtNoncurrent', 'DebtInstrumentFaceAmount', 'LongTermDebtFairValue', 'LineOfCredit', 'ConvertibleDebt', 'SeniorNotesCurrent', 'SeniorNotesNoncurrent',
  'NotesPayable', 'NotesPayableCurrent', 'NotesPayableNoncurrent', 'NotesPayableToBankCurrent', 'NotesPayableRelatedPartiesClassifiedCurrent', 'NotesPayableRelatedPartiesNoncurrent',
  'OtherNotesPayable', 'OtherNotesPayableCurrent', 'LongTermNotesPayableCurrent', 'ShortTermNonBankLoansAndNotesPayable',
  'SecuredDebt', 'SecuredDebtCurrent', 'SecuredLongTermDebt', 'UnsecuredDebt', 'UnsecuredDebtCurrent', 'UnsecuredLongTermDebt', 'SubordinatedDebt', 'JuniorSubordinatedNotes',
  'LoansPayable', 'LoansPayableCurrent', 'LongTermLoansPayable', 'OtherLongTermDebt', 'OtherLongTermDebtCurrent',
  'LongTermDebtAndCapitalLeaseObligationsIncludingCurrentMaturities', 'DebtAndCapitalLeaseObligations', 'AdvancesFromFederalHomeLoanBanks',
] as const;

/**
 * A us-gaap cash-flow concept of money borrowed or repaid (`ProceedsFromLinesOfCredit`,
 * `RepaymentsOfLongTermDebt`, the net `ProceedsFromRepaymentsOfShortTermDebt`...): debt history
 * too. Not the proceeds of debt securities held or of loans made (assets).
 */
export function debtFlowSign(concept: string): 1 | -1 | 0 | null {
  if (!/^(ProceedsFrom|RepaymentsOf)/.test(concept) || /Securities|Receivable|Investment|Held|LoansTo|LoansBy/.test(concept)) return null;
  if (!/Debt|Borrowing|NotesPayable|LinesOfCredit|LineOfCredit|CommercialPaper|LoansPayable|SeniorNotes|ConvertibleNotes|SecuredNotes/.test(concept)) return null;
  // 0: a net figure (proceeds less repayments), taken with its own sign.
  return concept.startsWith('ProceedsFromRepaymentsOf') ? 0 : concept.startsWith('ProceedsFrom') ? 1 : -1;
}

/** The sign `debtFlowSign` gives an `ifrs-full` period fact of borrowings: proceeds +1, repayments -1, any other (a net change) its own sign. */
function ifrsDebtFlowSign(concept: string): 1 | -1 {
  return concept.startsWith('RepaymentsOf') ? -1 : 1;
}

/**
 * The cash paid for interest in the period, net of the interest capitalized (`InterestPaidNet`), else
 * as tagged (`InterestPaid`): a filing's interest expense where it tags no interest-expense concept
 * for the period and the payment is not 0 (docs/calculations.md, "Interest expense of a US filer"),
 * as the KR reader takes the cash-flow statement's interest paid.
 */
const INTEREST_PAID_CONCEPTS = ['InterestPaidNet', 'InterestPaid'] as const;

/**
 * A us-gaap concept that states interest on borrowings (expensed, paid or capitalized): any one of
 * them positive in a filing's period is the second signal of `debtProvenZero`, read from every
 * concept of the name, not only the item's (`InterestExpenseOther`, `InterestPaidNet`...).
 */
const INTEREST_EVIDENCE = /^Interest(Expense|Paid|AndDebtExpense)/;
/**
 * An `ifrs-full` concept that states interest or finance costs (`FinanceCosts`, `InterestExpense`,
 * `InterestExpenseOnBorrowings`, `InterestPaidClassifiedAsOperatingActivities`, `BorrowingCostsCapitalised`,
 * the net `FinanceIncomeCost`...): any one of them other than 0 in a filing's period is the second signal of
 * `debtProvenZero` for an IFRS filer. Finance costs include the interest on lease liabilities
 * (IFRS 16.49) and the unwinding of discounts, so a lessee's figure is not 0 and its debt stays unknown;
 * a net figure may hide a cost, so it counts at any sign.
 */
const IFRS_INTEREST_EVIDENCE = /^(Interest(Expense|Paid)|FinanceCost|FinanceIncomeCost|FinanceIncomeExpense|BorrowingCosts)/;
/**
 * An `ifrs-full` concept that states an amount of borrowings (`Borrowings`, `ShorttermBorrowings`,
 * `BondsIssued`, `NotesAndDebenturesIssued`, `BankOverdraftsClassifiedAsCashEquivalents`...), balance
 * or flow: the filer's IFRS debt history (`debtProvenZero`). Lease liabilities are not in it, as
 * `ifrsDebtOf` does not count them.
 */
const IFRS_DEBT_EVIDENCE = /Borrowings|BondsIssued|Debentures|LoansReceived|BankOverdraft|CommercialPaper/;
/**
 * Interest concepts that may hold an interest expense: those of INTEREST_EVIDENCE and the net ones
 * (NET_INTEREST). A filing proven debt-free has interest expense 0 where none of these is filed for
 * its period, or only net ones showing income (`interestNil`).
 */
const INTEREST_ANY = /^Interest(Expense|Paid|AndDebtExpense|IncomeExpense)/;
/** A net interest concept (`InterestIncomeExpenseNet`, `InterestIncomeExpenseNonoperatingNet`): interest income less interest expense. */
const NET_INTEREST = /^InterestIncomeExpense/;
const NET_INTEREST_CONCEPTS = ['InterestIncomeExpenseNonoperatingNet', 'InterestIncomeExpenseNet'] as const;
/** Interest income before any expense (`interestNil`): interest earned on cash and investments. */
const INTEREST_INCOME_CONCEPTS = ['InvestmentIncomeInterest', 'InterestIncomeOther'] as const;

/**
 * Pre-tax income from continuing operations, with equity-method income, else without it: with
 * interest expense, the operating income of a filer that tags no operating-income concept
 * (`ebitOfPretax`).
 */
const PRETAX_CONCEPTS = [
  'IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest',
  'IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments',
] as const;
/**
 * The IFRS pre-tax fallback (`ebitOfPretax`): profit before tax plus the finance costs deducted in
 * it, the line IAS 1.82(b) puts on the face of the income statement (interest on borrowings with
 * interest on lease liabilities and the unwinding of discounts on provisions, as filed), else the
 * interest expense of a filer that tags no finance-costs line.
 */
const IFRS_PRETAX_CONCEPTS = ['ifrs-full:ProfitLossBeforeTax'] as const;
const IFRS_FINANCE_COSTS = ['ifrs-full:FinanceCosts', 'ifrs-full:InterestExpense'] as const;

/**
 * How long an operating-income fact keeps a filer on its tagged operating income: a filing takes
 * pre-tax income + interest expense only when the filer tags no operating-income concept for any
 * period ending in the three years (1,096 days) before its period end or after it. Three years hold
 * every filing its TTM and the TTM four quarters earlier are taken from, so the figures compared
 * are on one basis.
 */
const EBIT_LOOKBACK_DAYS = 1096;

/** A us-gaap or IFRS concept of cost of sales (`CostOfRevenue`, `CostOfGoodsAndServicesSold`, `CostOfServices`, `ifrs-full:CostOfSales`...). */
const COST_OF_SALES_EVIDENCE = /^CostOf/;
/** The total of an income statement's expenses, which a cost of sales would be part of. */
const EXPENSE_TOTALS = ['CostsAndExpenses', 'OperatingExpenses'] as const;
/** A concept that states inventory or its change (`InventoryNet`, `EnergyRelatedInventory`, `IncreaseDecreaseInInventories`, `ifrs-full:Inventories`...). */
const INVENTORY_EVIDENCE = /Inventor/;

/** What a filer's whole companyfacts history proves absent (docs/calculations.md, "Debt" and CCC). */
interface FilerHistory {
  /** Names (`taxonomy:concept`) of every us-gaap and IFRS concept with a fact in the document, in any form. */
  concepts: readonly string[];
  /** Whether any concept matching `pattern` has a fact. */
  tags(pattern: RegExp): boolean;
}

function historyOf(body: Record<string, unknown>): FilerHistory {
  const concepts: string[] = [];
  const taxonomies = body['facts'];
  if (isRecord(taxonomies)) {
    for (const taxonomy of ['us-gaap', 'ifrs-full']) {
      const tax = taxonomies[taxonomy];
      if (!isRecord(tax)) continue;
      for (const [name, c] of Object.entries(tax)) {
        if (isRecord(c) && isRecord(c['units']) && Object.values(c['units']).some((l) => Array.isArray(l) && l.length > 0)) concepts.push(`${taxonomy}:${name}`);
      }
    }
  }
  return { concepts, tags: (pattern) => concepts.some((n) => pattern.test(n.slice(n.indexOf(':') + 1))) };
}

/** What `parseCompanyFacts` knows of the company besides its facts. */
export interface CompanyFactsOptions {
  /**
   * A financial company (`isFinancialSector` of its placement): its operating income is never taken
   * as pre-tax income + interest expense, interest being a lender's cost of sales, and its debt is
   * never proven 0 (its borrowings fund what it holds; debt metrics do not apply to it).
   */
  financial?: boolean;
}

/**
 * Dividends per common share, year to date, in USD per share: declared first (the figure that
 * belongs to the period), paid where a filer tags only that.
 */
const DIVIDEND_CONCEPTS = ['CommonStockDividendsPerShareDeclared', 'CommonStockDividendsPerShareCashPaid'] as const;

const SHARE_CONCEPTS = ['CommonStockSharesOutstanding', 'WeightedAverageNumberOfSharesOutstandingBasic'] as const;

/**
 * Expected year-to-date length in days per fiscal period (days between start and end, as
 * `daysBetween` counts them), with room for 52/53-week years and for retail calendars whose
 * quarters are 12 and 16 weeks: 12/12/12/16 (Costco: 83, 167, 251 days to Q1, Q2, Q3) and
 * 16/12/12/12 (111, 195, 279). The ranges do not overlap, so a filing's longest flow ending at its
 * period end names its quarter.
 */
const YTD_DAYS: Record<FiscalQuarter, [number, number]> = { 1: [80, 115], 2: [160, 200], 3: [245, 290], 4: [350, 380] };

function quarterOfDuration(days: number): FiscalQuarter | null {
  for (const q of [1, 2, 3, 4] as const) {
    const [lo, hi] = YTD_DAYS[q];
    if (days >= lo && days <= hi) return q;
  }
  return null;
}

/** The year and month a period end belongs to (52/53-week ends in a month's first week count for the previous month). */
function fiscalMonthKey(iso: string): { year: number; month: number } {
  const year = Number(iso.slice(0, 4));
  const month = fiscalMonthOf(iso);
  return { year: month === 12 && iso.slice(5, 7) === '01' ? year - 1 : year, month };
}

interface Filing {
  accn: string;
  form: string;
  filed: string;
  fy: number;
  quarter: FiscalQuarter;
  periodEnd: string;
  /** The first day of its year-to-date flows (the fiscal year's start); absent when it has none. */
  periodStart?: string;
}

export interface CompanyFactsResult {
  reports: FinancialReport[];
  /** Month the fiscal year ends, from the latest annual period in the facts; null without one. */
  fiscalYearEndMonth: number | null;
  entityName: string;
  /** Filings read but not taken, by reason (e.g. a period that is not a fiscal quarter). */
  skipped: Record<string, number>;
  /** Stock splits found between filings: the first filing in the new basis and the factor. */
  splits: { filed: string; factor: number }[];
  /** The currency the filer reports in (the unit of most of its statement facts): `USD`, `TWD`, `EUR`... */
  reportingCurrency: string;
  /** Files 20-F/40-F (a foreign private issuer). */
  foreignPrivateIssuer: boolean;
  /** The annual form of its latest annual filing when that is a 20-F or 40-F (amendments named as the form); null otherwise. */
  annualForm: string | null;
  /**
   * Where the filer reports in another currency than USD: the rate each filing's figures were
   * converted at (USD per unit of the reporting currency, from the filing's own USD convenience
   * translation, `convenienceRate`), by filing. Empty for USD reporters.
   */
  rates: { accn: string; filed: string; usdPerUnit: number; reference?: ReferenceConversion }[];
}

/** Why a foreign filer's interim filing is not taken (its TTM stays the latest annual one). */
export const INTERIM_WITHOUT_FLOWS = 'interim filing of a foreign filer without flow figures';

/** Why a filing of a foreign-currency reporter is not taken: its figures cannot be put in USD. */
export const NO_CONVENIENCE_TRANSLATION = 'filing in a foreign currency without a USD convenience translation';

/** Why such a filing is not taken where reference rates were given: none covers its currency and period. */
export const NO_REFERENCE_RATE = 'filing in a foreign currency without a USD convenience translation or an ECB reference rate for its period';

/**
 * How a filing without a USD convenience translation is converted at the ECB's reference rates
 * (docs/calculations.md section 9): its flows at the average of the daily rates of its
 * year-to-date period, its balances at the rate of its period end (the last published on or before
 * it); null when the series does not cover the period (a rate not published, or not yet stored).
 */
export function referenceConversion(series: UsdSeries, from: string, to: string): { usdPerUnit: number; reference: ReferenceConversion } | null {
  const average = periodAverage(series, from, to);
  const end = rateOnOrBefore(series, to);
  if (average === null || end === null) return null;
  return { usdPerUnit: average.usdPerUnit, reference: { from, to, days: average.days, balanceUsdPerUnit: end.usdPerUnit, balanceOn: end.date } };
}

/**
 * The currency a filer reports in: the unit that holds most of the statement facts of its latest
 * periodic filing. A foreign filer's USD convenience translation covers the filing's own year, its
 * own currency that year and every comparative, so its own currency holds more; a company that
 * moved from a 20-F in its currency to a 10-K in USD reports in USD from then on.
 */
function reportingCurrencyOf(body: Record<string, unknown>, concepts: readonly string[]): string {
  const taxonomies = body['facts'];
  if (!isRecord(taxonomies)) return 'USD';
  const lists: [string, Record<string, unknown>[]][] = [];
  for (const name of concepts) {
    const [taxonomy, concept] = splitConcept(name);
    const c = isRecord(taxonomies[taxonomy]) ? (taxonomies[taxonomy] as Record<string, unknown>)[concept] : undefined;
    if (!isRecord(c) || !isRecord(c['units'])) continue;
    for (const [unit, list] of Object.entries(c['units'])) {
      if (/^[A-Z]{3}$/.test(unit) && Array.isArray(list)) lists.push([unit, list.filter((f): f is Record<string, unknown> => isRecord(f) && FORMS.has(str(f, 'form')))]);
    }
  }
  let latest = '';
  for (const [, list] of lists) for (const f of list) if (`${str(f, 'filed')}|${str(f, 'accn')}` > latest) latest = `${str(f, 'filed')}|${str(f, 'accn')}`;
  const counts = new Map<string, number>();
  for (const [unit, list] of lists) {
    const n = list.filter((f) => `${str(f, 'filed')}|${str(f, 'accn')}` === latest).length;
    if (n > 0) counts.set(unit, (counts.get(unit) ?? 0) + n);
  }
  let best = 'USD';
  let most = 0;
  for (const [unit, n] of counts) if (n > most || (n === most && unit === 'USD')) [best, most] = [unit, n];
  return best;
}

/**
 * The rate a filing translates its own currency into USD at (USD per unit), as the filing itself
 * gives it: its USD convenience translation of a figure it also files in its currency, for the same
 * concept and period. The pair with the largest figure is taken: the USD figures are rounded (TSMC
 * files them to US$0.1 million), so the largest carries the rate most exactly. Null when the
 * filing gives no USD figure beside its own.
 */
export function convenienceRate(pairs: Iterable<{ own: number; usd: number }>): number | null {
  let best: { own: number; usd: number } | null = null;
  for (const p of pairs) if (p.own !== 0 && p.usd !== 0 && Math.sign(p.own) === Math.sign(p.usd) && (!best || Math.abs(p.own) > Math.abs(best.own))) best = p;
  return best ? best.usd / best.own : null;
}

/**
 * Maps a companyfacts document to one FinancialReport per periodic filing carrying financials:
 * 10-Q/10-K of domestic filers, 20-F/40-F (and 6-K where it is tagged) of foreign private issuers,
 * us-gaap or IFRS (`ifrs-full`) concepts. The period of a filing comes from its facts' own dates,
 * never from the fy/fp tags (they belong to the filing and are sometimes wrong: a 10-Q tagged FY,
 * an old filing with the next year's fy): the period end is the latest end among its facts, the
 * fiscal quarter the length of the year-to-date duration ending there, the fiscal year the
 * calendar year in which that fiscal year ends.
 *
 * A filer reporting in another currency than USD has its figures converted into USD at the rate of
 * the filing's own USD convenience translation (`convenienceRate`); a filing without one, where
 * `usdRates` (the ECB's reference rates crossed into USD) covers its currency and period, at those
 * (`referenceConversion`: flows at the period's average, balances at its end). Each filing gives,
 * besides its own period, the same period a year earlier as a second report disclosed on the same
 * day, converted at the same rates: from that day on the TTM and the TTM a year earlier are at one
 * rate, so growth is the growth in the reporting currency (a year translated at its own year's
 * rate would move growth by the currency's move). Share counts are in the listed security's units:
 * an ADS ticker's ordinary shares divided by its ADS ratio (src/domain/ads.ts).
 */
export function parseCompanyFacts(body: unknown, code: string, usdRates?: ReadonlyMap<string, UsdSeries>, options: CompanyFactsOptions = {}): CompanyFactsResult | null {
  if (!isRecord(body) || !isRecord(body['facts'])) return null;
  const entityName = str(body, 'entityName');
  const flowConcepts = Object.values(FLOW_CONCEPTS).flat();
  const periodConcepts = [...flowConcepts, ...Object.values(BALANCE_CONCEPTS).flat(), ...DEBT_CONCEPTS, ...IFRS_DEBT_CONCEPTS];
  const currency = reportingCurrencyOf(body, periodConcepts);
  const byConcept = new Map<string, Fact[]>();
  const gaap = (concept: string, unit = currency): Fact[] => {
    const key = `${concept}|${unit}`;
    let f = byConcept.get(key);
    if (!f) {
      f = facts(body, concept, unit);
      byConcept.set(key, f);
    }
    return f;
  };
  // A concept's facts by filing, indexed once: every lookup below is for one filing, and
  // scanning a concept's whole history per filing made a long filer's document quadratic.
  const byFiling = new Map<string, Map<string, Fact[]>>();
  const inFiling = (concept: string, accn: string, unit = currency): readonly Fact[] => {
    const key = `${concept}|${unit}`;
    let index = byFiling.get(key);
    if (!index) {
      index = new Map();
      for (const f of gaap(concept, unit)) {
        const list = index.get(f.accn);
        if (list) list.push(f);
        else index.set(f.accn, [f]);
      }
      byFiling.set(key, index);
    }
    return index.get(accn) ?? [];
  };
  const skipped: Record<string, number> = {};
  const skip = (reason: string): void => void (skipped[reason] = (skipped[reason] ?? 0) + 1);

  // What the filer's whole history proves absent (docs/calculations.md, "Debt" and CCC).
  const history = historyOf(body);
  // The proof of cost of sales absent reads us-gaap filers only: IFRS lets an income statement
  // analyse expenses by nature, without a cost of sales line (IAS 1.99). Debt's proof reads both
  // taxonomies, its roll-forward and interest 0 us-gaap filers only. Inventory's evidence is any taxonomy's name (`ifrs-full:Inventories`
  // too): a filer of either with a cost of sales that never tagged one holds none.
  const gaapFiler = !history.concepts.some((n) => n.startsWith('ifrs-full:'));
  const neverCostOfSales = gaapFiler && !history.tags(COST_OF_SALES_EVIDENCE);
  const neverInventory = !history.tags(INVENTORY_EVIDENCE);
  let lastOperatingIncomeEnd = '';
  for (const concept of FLOW_CONCEPTS.operatingIncome ?? []) for (const f of gaap(concept)) if (f.end > lastOperatingIncomeEnd) lastOperatingIncomeEnd = f.end;
  // Debt and interest facts in every unit (a filer's borrowings in other currencies count too),
  // gathered at the first filing that needs them: most filers' every filing has a debt line.
  const gaapConcepts = (pattern: RegExp): string[] => history.concepts.filter((n) => n.startsWith('us-gaap:') && pattern.test(n.slice(8))).map((n) => n.slice(8));
  const ifrsConcepts = (pattern: RegExp): string[] => history.concepts.filter((n) => n.startsWith('ifrs-full:') && pattern.test(n.slice(10)));
  /** Facts by filing (accn). */
  const byAccn = <F extends Fact>(list: readonly F[]): Map<string, F[]> => {
    const index = new Map<string, F[]>();
    for (const f of list) {
      const at = index.get(f.accn);
      if (at) at.push(f);
      else index.set(f.accn, [f]);
    }
    return index;
  };
  let debtFacts: ReturnType<typeof gatherDebtFacts> | undefined;
  const gatherDebtFacts = () => {
    // IFRS borrowing concepts beyond those `ifrsDebtOf` reads (IFRS_DEBT_EVIDENCE), interest concepts
    // left to the second signal: instants are balances, periods flows.
    const ifrsDebt = history.concepts.filter((n) => {
      const name = n.slice(10);
      return n.startsWith('ifrs-full:') && IFRS_DEBT_EVIDENCE.test(name) && !IFRS_INTEREST_EVIDENCE.test(name);
    });
    const ifrsDebtFacts = ifrsDebt.flatMap((concept) => factsInEveryUnit(body, concept).map((f) => ({ ...f, concept })));
    const historyNames = new Set<string>(DEBT_HISTORY_CONCEPTS);
    const balances = [
      ...DEBT_HISTORY_CONCEPTS.flatMap((c) => factsInEveryUnit(body, c)),
      ...ifrsDebtFacts.filter((f) => f.start === undefined && !historyNames.has(f.concept)),
    ];
    const flows = [
      ...history.concepts.flatMap((n) => {
        const concept = n.startsWith('us-gaap:') ? n.slice(8) : '';
        const sign = debtFlowSign(concept);
        return sign === null ? [] : factsInEveryUnit(body, concept).map((f) => ({ ...f, concept, signed: sign === 0 ? f.val : sign * f.val }));
      }),
      ...ifrsDebtFacts.filter((f) => f.start !== undefined).map((f) => ({ ...f, signed: ifrsDebtFlowSign(f.concept.slice(10)) * f.val })),
    ];
    return {
      balances,
      filings: new Set(balances.map((f) => f.accn)),
      flows,
      flowsOf: byAccn(flows),
      interest: byAccn([...new Set([...(FLOW_CONCEPTS.interestExpense ?? []), ...gaapConcepts(INTEREST_EVIDENCE), ...ifrsConcepts(IFRS_INTEREST_EVIDENCE)])].flatMap((c) => factsInEveryUnit(body, c))),
      anyInterest: byAccn(gaapConcepts(INTEREST_ANY).flatMap((c) => factsInEveryUnit(body, c).map((f) => ({ ...f, concept: c })))),
    };
  };
  const debtFactsOf = (): ReturnType<typeof gatherDebtFacts> => (debtFacts ??= gatherDebtFacts());

  // Per filing: the latest end among its facts, and the year-to-date length of its flows there.
  const ends = new Map<string, { form: string; filed: string; end: string }>();
  for (const concept of periodConcepts) {
    for (const f of gaap(concept)) {
      const prev = ends.get(f.accn);
      if (!prev) ends.set(f.accn, { form: f.form, filed: f.filed, end: f.end });
      else if (f.end > prev.end) prev.end = f.end;
    }
  }
  // The fiscal year end month, for filings without a flow (a balance-sheet-only amendment):
  // from the latest twelve-month flow in the document.
  let fyeMonth: number | null = null;
  let latestAnnualEnd = '';
  for (const concept of flowConcepts) {
    for (const f of gaap(concept)) {
      if (f.start !== undefined && quarterOfDuration(daysBetween(f.start, f.end)) === 4 && f.end > latestAnnualEnd) {
        latestAnnualEnd = f.end;
        fyeMonth = fiscalMonthOf(f.end);
      }
    }
  }
  const filings: Filing[] = [];
  for (const [accn, { form, filed, end }] of ends) {
    let ytdStart: string | undefined;
    for (const concept of flowConcepts) {
      for (const f of inFiling(concept, accn)) {
        if (f.end !== end || f.start === undefined) continue;
        const q = quarterOfDuration(daysBetween(f.start, f.end));
        if (q !== null && (ytdStart === undefined || f.start < ytdStart)) ytdStart = f.start;
      }
    }
    let quarter: FiscalQuarter | null = null;
    let fy: number;
    if (ytdStart !== undefined) {
      quarter = quarterOfDuration(daysBetween(ytdStart, end));
      // The fiscal year ends about a year after it starts; it is named by that end's year.
      fy = fiscalMonthKey(addDays(ytdStart, 364)).year;
    } else {
      const { year, month } = fiscalMonthKey(end);
      const fye = fyeMonth ?? 12;
      const offset = (month - fye + 12) % 12;
      quarter = offset === 0 ? 4 : offset === 3 ? 1 : offset === 6 ? 2 : offset === 9 ? 3 : null;
      fy = month <= fye ? year : year + 1;
    }
    if (quarter === null) {
      skip('filing whose period is not a fiscal quarter');
      continue;
    }
    filings.push({ accn, form, filed, fy, quarter, periodEnd: end, ...(ytdStart !== undefined ? { periodStart: ytdStart } : {}) });
  }
  filings.sort((a, b) => a.filed.localeCompare(b.filed) || a.accn.localeCompare(b.accn));

  const flow = (filing: Filing, concepts: readonly string[] | undefined, unit = currency): number | null => {
    const [lo, hi] = YTD_DAYS[filing.quarter];
    for (const concept of concepts ?? []) {
      let best: Fact | undefined;
      for (const f of inFiling(concept, filing.accn, unit)) {
        if (f.end !== filing.periodEnd || f.start === undefined) continue;
        const days = daysBetween(f.start, f.end);
        if (days >= lo && days <= hi && (!best || days > daysBetween(best.start ?? best.end, best.end))) best = f;
      }
      if (best) return best.val;
    }
    return null;
  };
  const balance = (filing: Filing, concepts: readonly string[], unit = currency): number | null => {
    for (const concept of concepts) {
      const f = inFiling(concept, filing.accn, unit).find((x) => x.end === filing.periodEnd && x.start === undefined);
      if (f) return f.val;
    }
    return null;
  };
  const sharesFacts = facts(body, 'dei:EntityCommonStockSharesOutstanding', 'shares');
  const sharesOf = (filing: Filing): number | null => {
    // Cover-page shares are dated after the period; several classes are summed. Multi-class
    // companies file them per class with a dimension, which companyfacts leaves out: then the
    // balance sheet's shares outstanding, then the period's weighted average.
    const cover = sharesFacts.filter((x) => x.accn === filing.accn);
    const coverEnd = cover.map((x) => x.end).sort().at(-1);
    if (coverEnd !== undefined) return cover.filter((x) => x.end === coverEnd).reduce((a, x) => a + x.val, 0);
    const outstanding = balance(filing, [SHARE_CONCEPTS[0]], 'shares');
    if (outstanding !== null) return outstanding;
    let best: Fact | undefined;
    for (const f of inFiling(SHARE_CONCEPTS[1], filing.accn, 'shares')) {
      if (f.end === filing.periodEnd && f.start !== undefined && (!best || f.start < (best.start ?? ''))) best = f;
    }
    return best?.val ?? null;
  };
  /**
   * Operating income as pre-tax income + interest expense (IFRS: profit before tax + finance costs) is taken for a filing of a non-financial
   * filer that tags no operating-income concept for a period ending within EBIT_LOOKBACK_DAYS
   * before the filing's period end or after it.
   */
  const ebitOfPretaxAllowed = (filing: Filing): boolean =>
    options.financial !== true && (lastOperatingIncomeEnd === '' || lastOperatingIncomeEnd <= addDays(filing.periodEnd, -EBIT_LOOKBACK_DAYS));
  /**
   * Debt at the filing's date proven 0 by two signals (docs/calculations.md, "Debt"). The filer's
   * debt history as filed by then says none: the filing tags no debt balance concept
   * (DEBT_HISTORY_CONCEPTS) at all, and at the latest date any debt fact (balance or borrowing
   * flow, `debtFlowSign`) is for, the balances are all 0 (a repaid loan's line), or, without a
   * balance there, the borrowings and repayments of the longest period ending there net to 0 (a
   * credit line drawn and repaid within the year); no debt fact ever is none too (the IFRS borrowing
   * concepts of IFRS_DEBT_EVIDENCE included). And the filing states no interest (INTEREST_EVIDENCE,
   * IFRS_INTEREST_EVIDENCE) for its period; for a us-gaap filer, a roll-forward from 0 stands for that.
   */
  const debtProvenZero = (filing: Filing): boolean => {
    const { balances: debtHistory, filings: debtFilings, flows: debtFlows, interest } = debtFactsOf();
    if (debtFilings.has(filing.accn)) return false;
    let lastEnd = '';
    for (const f of debtHistory) if (f.filed <= filing.filed && f.end > lastEnd) lastEnd = f.end;
    for (const f of debtFlows) if (f.filed <= filing.filed && f.end > lastEnd) lastEnd = f.end;
    const balances = debtHistory.filter((f) => f.filed <= filing.filed && f.end === lastEnd);
    if (balances.length > 0) {
      if (balances.some((f) => f.val !== 0)) return false;
    } else if (lastEnd !== '') {
      const flows = debtFlows.filter((f) => f.filed <= filing.filed && f.end === lastEnd && f.start !== undefined);
      const start = flows.map((f) => f.start as string).sort()[0];
      // Each concept once (the latest filing's figure for the period), then the net.
      const byConcept = new Map<string, number>();
      for (const f of flows.filter((x) => x.start === start).sort((a, b) => a.filed.localeCompare(b.filed))) byConcept.set(f.concept, f.signed);
      if ([...byConcept.values()].reduce((a, b) => a + b, 0) !== 0) return false;
    }
    return !(interest.get(filing.accn) ?? []).some((f) => f.end === filing.periodEnd && f.val !== 0) || (gaapFiler && debtRolledForwardZero(filing));
  };
  /**
   * Debt at the filing's period end rolled forward from a balance of 0 (docs/calculations.md,
   * "Debt"): the latest debt balances filed by then are all 0 at a date before the period end, and
   * the filing's own cash-flow statement tags both money borrowed and money repaid (`debtFlowSign`)
   * for the whole period from the day after that date to its period end, every debt flow it tags
   * ending there 0. Nothing borrowed since a balance of 0 leaves a balance of 0, whatever interest
   * the period carries.
   */
  const debtRolledForwardZero = (filing: Filing): boolean => {
    const { balances, flowsOf } = debtFactsOf();
    let lastEnd = '';
    for (const f of balances) if (f.filed <= filing.filed && f.end > lastEnd) lastEnd = f.end;
    if (lastEnd === '' || lastEnd >= filing.periodEnd) return false;
    if (balances.some((f) => f.filed <= filing.filed && f.end === lastEnd && f.val !== 0)) return false;
    const start = addDays(lastEnd, 1);
    const own = (flowsOf.get(filing.accn) ?? []).filter((f) => f.end === filing.periodEnd && f.start !== undefined && f.start >= start);
    const whole = own.filter((f) => f.start === start);
    const borrowing = whole.some((f) => debtFlowSign(f.concept) !== -1);
    const repaying = whole.some((f) => debtFlowSign(f.concept) !== 1);
    return borrowing && repaying && own.every((f) => f.val === 0);
  };
  /**
   * Whether a filing proven debt-free (`debtProvenZero`) that tags no interest-expense concept has
   * an interest expense of 0 (docs/calculations.md, "Debt"): no interest concept at all for its
   * period (INTEREST_ANY) and nothing borrowed or repaid in it; or only net interest concepts
   * (NET_INTEREST), each showing net income, and either nothing borrowed or repaid in the period, or
   * the period's net interest equal to its gross interest income (INTEREST_INCOME_CONCEPTS) to the
   * precision the net figure is stated in (no expense netted in it).
   */
  const interestNil = (filing: Filing): boolean => {
    const { flowsOf, anyInterest } = debtFactsOf();
    const borrowed = (flowsOf.get(filing.accn) ?? []).some((f) => f.end === filing.periodEnd && f.start !== undefined && f.val !== 0);
    const stated = (anyInterest.get(filing.accn) ?? []).filter((f) => f.end === filing.periodEnd);
    if (stated.length === 0) return !borrowed;
    if (!stated.every((f) => NET_INTEREST.test(f.concept) && f.val > 0)) return false;
    if (!borrowed) return true;
    const net = flow(filing, NET_INTEREST_CONCEPTS);
    const gross = flow(filing, INTEREST_INCOME_CONCEPTS);
    return net !== null && gross !== null && Math.abs(gross - net) <= precisionOf(net) / 2;
  };
  /** The filing's report of its own period (or of `filing`'s comparative period); null when it carries no figure for it. */
  const reportOf = (filing: Filing): FinancialReport | null => {
    const item = (i: Item): number | null => {
      const fc = FLOW_CONCEPTS[i];
      if (fc) return flow(filing, fc);
      const bc = BALANCE_CONCEPTS[i];
      return bc ? balance(filing, bc) : null;
    };
    const capex = item('capex');
    const interest = item('interestExpense');
    // No interest-expense concept for the period: the cash-flow statement's interest paid of the same
    // period, where some was paid (none paid is no proof that none accrued).
    const paid = interest === null ? flow(filing, INTEREST_PAID_CONCEPTS) : null;
    const revenue = item('revenue');
    const operatingIncome =
      item('operatingIncome') ??
      (ebitOfPretaxAllowed(filing) ? (ebitOfPretax(flow(filing, PRETAX_CONCEPTS), interest) ?? ebitOfPretax(flow(filing, IFRS_PRETAX_CONCEPTS), flow(filing, IFRS_FINANCE_COSTS))) : null);
    const lessNci = (total: number | null, nci: number | null): number | null => (total === null ? null : total - (nci ?? 0));
    const netIncome = item('netIncome') ?? lessNci(flow(filing, [CONSOLIDATED_NET_INCOME.total]), flow(filing, [CONSOLIDATED_NET_INCOME.nci]));
    const equity = item('equity') ?? lessNci(balance(filing, [CONSOLIDATED_EQUITY.total]), balance(filing, [CONSOLIDATED_EQUITY.nci]));
    const restricted = RESTRICTED_CASH.some((c) => (balance(filing, [c]) ?? 0) > 0);
    const cash = item('cash') ?? (restricted ? null : balance(filing, [CASH_WITH_RESTRICTED]));
    const report: FinancialReport = {
      market: 'US',
      code,
      fiscalYear: filing.fy,
      fiscalQuarter: filing.quarter,
      periodEnd: filing.periodEnd,
      disclosedOn: filing.filed,
      consolidated: true,
      revenue,
      // Revenue and the total of expenses in the filing, no cost-of-sales concept in the filer's
      // history: its income statement has none (0; CCC not applicable).
      costOfSales: item('costOfSales') ?? (neverCostOfSales && revenue !== null && flow(filing, EXPENSE_TOTALS) !== null ? 0 : null),
      operatingIncome,
      netIncome,
      operatingCashFlow: item('operatingCashFlow'),
      capex: capex === null ? null : Math.abs(capex),
      interestExpense: interest !== null ? Math.abs(interest) : paid === null || paid === 0 ? null : Math.abs(paid),
      // The US EPS divides net income by the split-consistent shares (src/domain/snapshot.ts).
      basicEps: null,
      dividendPerShare: flow(filing, DIVIDEND_CONCEPTS, 'USD/shares'),
      totalAssets: item('totalAssets'),
      currentAssets: item('currentAssets'),
      totalLiabilities: item('totalLiabilities'),
      currentLiabilities: item('currentLiabilities'),
      equity,
      cash,
      debt: debtOf((concepts) => balance(filing, concepts)) ?? ifrsDebtOf((concepts) => balance(filing, concepts)),
      receivables: item('receivables'),
      inventory: item('inventory'),
      payables: item('payables'),
      shares: null,
      source: SOURCE_NAME,
    };
    const balanceSheet = report.totalAssets !== null || report.totalLiabilities !== null;
    // Of the filing's own period only: a later filing's comparative column need not repeat the interest lines of the period.
    const ownPeriod = ends.get(filing.accn)?.end === filing.periodEnd;
    if (report.debt === null && balanceSheet && ownPeriod && options.financial !== true && debtProvenZero(filing)) {
      report.debt = 0;
      if (report.interestExpense === null && gaapFiler && interestNil(filing)) report.interestExpense = 0;
    }
    // A filer (us-gaap or IFRS) with cost of sales that never tagged an inventory concept holds none (a software or service company: DIO 0).
    if (report.inventory === null && balanceSheet && neverInventory && history.tags(COST_OF_SALES_EVIDENCE)) report.inventory = 0;
    // A filing with no current-period figure (e.g. a 10-K/A that only amends Part III) is not a report.
    const hasData = [...Object.keys(FLOW_CONCEPTS), ...Object.keys(BALANCE_CONCEPTS)].some((k) => report[k as Item] !== null);
    return hasData ? report : null;
  };

  const reports: FinancialReport[] = [];
  const rawShares: (number | null)[] = [];
  const taken: Filing[] = [];
  for (const filing of filings) {
    const report = reportOf(filing);
    if (report === null) continue;
    // A foreign filer's interim filing (6-K) with a balance sheet but no flow figures would end the
    // TTM at a period it has no flows for: its TTM stays the latest annual one.
    if (FOREIGN_FORMS.has(filing.form) && filing.quarter !== 4 && FLOW_ITEMS.every((k) => report[k] === null)) {
      skip(INTERIM_WITHOUT_FLOWS);
      continue;
    }
    reports.push(report);
    rawShares.push(sharesOf(filing));
    taken.push(filing);
  }
  const eps = currency === 'USD' ? gaap('EarningsPerShareBasic', 'USD/shares') : [];
  const splits = detectSplits(
    reports.map((r, i) => ({ filed: r.disclosedOn, shares: rawShares[i] ?? null })),
    [...eps, ...gaap('ifrs-full:BasicEarningsLossPerShare', `${currency}/shares`)],
  );

  const rates: CompanyFactsResult['rates'] = [];
  const out: FinancialReport[] = [];
  /** Each report's share count as filed and the date of the filing it is from (its split basis). */
  const outShares: { raw: number | null; filed: string }[] = [];
  if (currency === 'USD') {
    out.push(...reports);
    outShares.push(...reports.map((r, i) => ({ raw: rawShares[i] ?? null, filed: r.disclosedOn })));
    for (const v of comparativeVersions(reports, taken, (filing, periodEnd) => reportOf({ ...filing, fy: filing.fy - 1, periodEnd }))) {
      out.push(v.report);
      outShares.push({ raw: rawShares[v.of] ?? null, filed: (reports[v.of] as FinancialReport).disclosedOn });
    }
  } else {
    reports.forEach((report, i) => {
      const filing = taken[i] as Filing;
      const pairs: { own: number; usd: number }[] = [];
      for (const concept of periodConcepts) {
        const usd = inFiling(concept, filing.accn, 'USD');
        if (usd.length === 0) continue;
        for (const f of inFiling(concept, filing.accn)) {
          const u = usd.find((x) => x.end === f.end && x.start === f.start);
          if (u) pairs.push({ own: f.val, usd: u.val });
        }
      }
      const convenience = convenienceRate(pairs);
      // Without a translation of its own: the reference rates of its period, where given.
      const series = convenience === null ? usdRates?.get(currency) : undefined;
      const reference = series && filing.periodStart !== undefined ? referenceConversion(series, filing.periodStart, filing.periodEnd) : null;
      const rate = convenience ?? reference?.usdPerUnit ?? null;
      if (rate === null) {
        skip(usdRates === undefined ? NO_CONVENIENCE_TRANSLATION : NO_REFERENCE_RATE);
        return;
      }
      const balanceRate = reference?.reference.balanceUsdPerUnit ?? rate;
      rates.push({ accn: filing.accn, filed: filing.filed, usdPerUnit: rate, ...(reference ? { reference: reference.reference } : {}) });
      out.push(inUsd(report, rate, balanceRate));
      outShares.push({ raw: rawShares[i] ?? null, filed: report.disclosedOn });
      // The same period a year earlier, from this filing, at this filing's rate.
      const priorEnd = comparativeEnd(filing, (concept) => inFiling(concept, filing.accn), flowConcepts);
      if (priorEnd === null) return;
      const prior = reportOf({ ...filing, fy: filing.fy - 1, periodEnd: priorEnd });
      if (prior === null) return;
      // Its shares: the count of the latest filing of that period before this one, in that filing's basis.
      let original = -1;
      reports.forEach((r, k) => {
        if (r.fiscalYear === prior.fiscalYear && r.fiscalQuarter === prior.fiscalQuarter && r.disclosedOn <= filing.filed) original = k;
      });
      out.push(inUsd(prior, rate, balanceRate));
      outShares.push(original < 0 ? { raw: null, filed: filing.filed } : { raw: rawShares[original] ?? null, filed: (reports[original] as FinancialReport).disclosedOn });
    });
  }
  // Every filing's shares in the latest basis (the basis of split-adjusted prices): a count
  // filed before a split is multiplied by that split's factor, a dividend per share divided by it;
  // an ADS ticker's count is in ADSs, and its dividend per share that of the ordinary shares one
  // ADS represents.
  const ads = adsRatioOf(code);
  out.forEach((r, i) => {
    const { raw, filed } = outShares[i] ?? { raw: null, filed: r.disclosedOn };
    let factor = 1;
    for (const split of splits) if (split.filed > filed) factor *= split.factor;
    if (r.dividendPerShare !== null && (factor !== 1 || ads !== null)) r.dividendPerShare = (r.dividendPerShare / factor) * (ads?.ordinaryPerAds ?? 1);
    if (raw === null) return;
    r.shares = ads ? listedShares(code, raw * factor) : Math.round(raw * factor);
  });
  const foreignPrivateIssuer = filings.some((f) => FOREIGN_FORMS.has(f.form));
  const latestAnnual = filings.filter((f) => f.quarter === 4).at(-1)?.form.replace(/\/A$/, '') ?? null;
  const annualForm = latestAnnual === '20-F' || latestAnnual === '40-F' ? latestAnnual : null;
  return { reports: out, fiscalYearEndMonth: fyeMonth, entityName, skipped, splits, reportingCurrency: currency, foreignPrivateIssuer, annualForm, rates };
}

/**
 * The versions of earlier periods that later domestic filings (10-K, 10-Q and their amendments)
 * restate in their comparatives: a filing's
 * figures for the same fiscal quarter a year before its own (a 10-K's prior-year column, a 10-Q's
 * prior-year year to date), where one of them differs from that period's version known when the
 * filing was made. Such a version is that known version with the filing's figures in place of its
 * own where the filing gives one (of a 10-Q's, its flows: it states no balance sheet at the prior
 * year's quarter end),
 * dated at the filing's `filed`; a comparative that repeats the known figures makes none. Money
 * figures only: a per-share figure of a comparative is on the later filing's share basis. `prior`
 * reads a filing's figures for a period end (`reportOf` on the filing's own facts). Answers each
 * version and the index in `reports` of the report whose shares it carries (the period's first).
 */
function comparativeVersions(
  reports: readonly FinancialReport[],
  filings: readonly Filing[],
  prior: (filing: Filing, periodEnd: string) => FinancialReport | null,
): { report: FinancialReport; of: number }[] {
  const out: { report: FinancialReport; of: number }[] = [];
  /** Per period (fiscal year and quarter): the index of its first report and its latest version. */
  const known = new Map<string, { of: number; latest: FinancialReport }>();
  const keyOf = (fy: number, q: number): string => `${fy}Q${q}`;
  reports.forEach((report, i) => {
    const filing = filings[i] as Filing;
    const earlier = known.get(keyOf(report.fiscalYear - 1, report.fiscalQuarter));
    const own = known.get(keyOf(report.fiscalYear, report.fiscalQuarter));
    if (own === undefined) known.set(keyOf(report.fiscalYear, report.fiscalQuarter), { of: i, latest: report });
    else if (report.disclosedOn >= own.latest.disclosedOn) own.latest = report;
    // A 20-F's comparatives are the foreign private issuer's growth base (section 9 of docs/calculations.md), not versions here.
    if (earlier === undefined || earlier.latest.disclosedOn >= report.disclosedOn || !DOMESTIC_FORMS.has(filing.form)) return;
    const stated = prior(filing, earlier.latest.periodEnd);
    if (stated === null) return;
    const version: FinancialReport = { ...earlier.latest, disclosedOn: report.disclosedOn };
    let changed = false;
    // A 10-K states the prior year's balance sheet beside its own; a 10-Q has none at the prior-year
    // quarter end, and the facts dated there are other statements' (the cash-flow statement's
    // cash with restricted cash, the equity statement's equity with the non-controlling
    // interests): of a 10-Q's comparatives, the flows alone.
    for (const k of report.fiscalQuarter === 4 ? MONEY_ITEMS : FLOW_MONEY_ITEMS) {
      const v = stated[k];
      const held = version[k];
      if (v === null || (held !== null && sameToPrecision(v, held))) continue;
      version[k] = v;
      changed = true;
    }
    if (!changed) return;
    out.push({ report: version, of: earlier.of });
    earlier.latest = version;
  });
  return out;
}

/**
 * Whether `stated` (a later filing's figure) states `held` to its own precision: a filer that moves
 * from thousands to millions restates nothing when 14,235,395,000 becomes 14,235,000,000 (Tesla's
 * 2018 Q3 revenue in its 2019 10-Q), nor when a subtotal of rounded lines comes out a unit off
 * (Tesla's 2018 current assets 8,306,308,000 as 8,307,000,000; Marvell's FY2022 capex 169,324,000
 * as 169,200,000 in tenths of a million). The precision is the largest power of ten, up to a
 * million, that divides `stated`; the figures agree when they differ by at most two of it.
 */
function sameToPrecision(stated: number, held: number): boolean {
  return Math.abs(stated - held) <= 2 * precisionOf(stated);
}

/** The unit a figure is stated in: the largest power of ten, up to a million, that divides it (62,200,000: 100,000). */
function precisionOf(figure: number): number {
  let unit = 1;
  while (unit < 1_000_000 && figure % (unit * 10) === 0) unit *= 10;
  return unit;
}

const FLOW_MONEY_ITEMS = ['revenue', 'costOfSales', 'operatingIncome', 'netIncome', 'operatingCashFlow', 'capex', 'interestExpense'] as const satisfies readonly Item[];
const BALANCE_MONEY_ITEMS = [
  'totalAssets', 'currentAssets', 'totalLiabilities', 'currentLiabilities', 'equity', 'cash', 'debt', 'receivables', 'inventory', 'payables',
] as const satisfies readonly Item[];

/** Every money figure of a report (`comparativeVersions`: a 10-K's comparatives; a 10-Q's are its flows). */
const MONEY_ITEMS = [...FLOW_MONEY_ITEMS, ...BALANCE_MONEY_ITEMS] as const;

/** A report's flows times `usdPerUnit` and its balances times `balanceUsdPerUnit` (shares and dates as they are). */
function inUsd(report: FinancialReport, usdPerUnit: number, balanceUsdPerUnit: number): FinancialReport {
  const out = { ...report };
  for (const k of FLOW_MONEY_ITEMS) {
    const v = report[k];
    out[k] = v === null ? null : v * usdPerUnit;
  }
  for (const k of BALANCE_MONEY_ITEMS) {
    const v = report[k];
    out[k] = v === null ? null : v * balanceUsdPerUnit;
  }
  return out;
}

/**
 * The end of the period a year before `filing`'s that the filing also reports (its comparative):
 * the end of a flow of the filing's year-to-date length, 350 to 380 days before its own end.
 */
function comparativeEnd(filing: Filing, inFiling: (concept: string) => readonly Fact[], flowConcepts: readonly string[]): string | null {
  const [lo, hi] = YTD_DAYS[filing.quarter];
  for (const concept of flowConcepts) {
    for (const f of inFiling(concept)) {
      if (f.start === undefined) continue;
      const gap = daysBetween(f.end, filing.periodEnd);
      const days = daysBetween(f.start, f.end);
      if (gap >= 350 && gap <= 380 && days >= lo && days <= hi) return f.end;
    }
  }
  return null;
}

/**
 * Interest-bearing debt at a balance-sheet date: current part + non-current part, null when no
 * debt concept is filed (unknown, never 0). Current: DebtCurrent (short-term borrowings and
 * current maturities together) or else its parts. Non-current: LongTermDebtNoncurrent, or
 * LongTermDebt less the current maturities when both are filed, or LongTermDebt alone beside
 * a current part filed on its own (as Tesla files it), or the narrower note and convertible
 * concepts. A total of 0 while a debt instrument's carrying amount is positive is a component
 * filed under a concept not read here: unknown, not 0.
 */
export function debtOf(balance: (concepts: readonly string[]) => number | null): number | null {
  const one = (c: string): number | null => balance([c]);
  const shortTerm = balance(['ShortTermBorrowings', 'ShortTermBankLoansAndNotesPayable']) ?? sumOrNull([one('CommercialPaper'), one('OtherShortTermBorrowings'), one('LinesOfCreditCurrent')]);
  const longTermCurrent = one('LongTermDebtCurrent');
  const current =
    one('DebtCurrent') ??
    sumOrNull([longTermCurrent, shortTerm, balance(['ConvertibleDebtCurrent', 'ConvertibleNotesPayableCurrent'])]) ??
    one('LongTermDebtAndCapitalLeaseObligationsCurrent');
  const longTerm = one('LongTermDebt');
  const noncurrent =
    one('LongTermDebtNoncurrent') ??
    (longTerm !== null && longTermCurrent !== null ? longTerm - longTermCurrent : longTerm) ??
    sumOrNull([
      balance(['ConvertibleDebtNoncurrent', 'ConvertibleLongTermNotesPayable']),
      one('LongTermNotesPayable'),
      one('SeniorLongTermNotes'),
      one('OtherLongTermDebtNoncurrent'),
      one('LongTermLineOfCredit'),
    ]) ??
    one('LongTermDebtAndCapitalLeaseObligations');
  const debt = sumOrNull([current, noncurrent]);
  if (debt === 0 && DEBT_EVIDENCE.some((c) => (one(c) ?? 0) > 0)) return null;
  return debt;
}

/**
 * Operating income (EBIT) of a filer whose income statement goes from its expenses straight to
 * pre-tax income (Exxon Mobil, Johnson & Johnson): pre-tax income from continuing operations plus
 * the interest expense deducted in it, null unless both are filed for the period.
 */
export function ebitOfPretax(pretax: number | null, interestExpense: number | null): number | null {
  return pretax === null || interestExpense === null ? null : pretax + Math.abs(interestExpense);
}

/**
 * Stock splits between consecutive filings: the share count jumps by a near-integer factor
 * n >= 2 (or falls to 1/n, a reverse split) from one filing to the next, where a business does
 * not grow or shrink its share count by that much. Where the company files basic EPS, the split
 * must also show in it: a period's EPS as first filed and as restated by a later filing differ
 * by the same factor (a merger paid in shares changes the count, not past EPS).
 */
export function detectSplits(observations: readonly { filed: string; shares: number | null }[], eps: readonly Fact[]): { filed: string; factor: number }[] {
  const splits: { filed: string; factor: number }[] = [];
  const byPeriod = new Map<string, Fact[]>();
  for (const f of eps) {
    const key = `${f.start ?? ''}|${f.end}`;
    const list = byPeriod.get(key);
    if (list) list.push(f);
    else byPeriod.set(key, [f]);
  }
  const restated = (before: string, after: string, factor: number): boolean => {
    if (eps.length === 0) return true;
    for (const list of byPeriod.values()) {
      const old = list.find((f) => f.filed <= before && f.val !== 0);
      const next = list.find((f) => f.filed >= after && f.val !== 0);
      // EPS is filed in cents: allow a cent of rounding on top of 3 %.
      if (old && next && Math.abs(old.val - next.val * factor) <= 0.01 * Math.max(1, factor) + 0.03 * Math.abs(old.val)) return true;
    }
    return false;
  };
  let prev: { filed: string; shares: number } | null = null;
  for (const o of observations) {
    if (o.shares === null || !(o.shares > 0)) continue;
    if (prev !== null) {
      const factor = splitRatioOf(o.shares / prev.shares);
      if (factor !== null && restated(prev.filed, o.filed, factor)) splits.push({ filed: o.filed, factor });
    }
    prev = { filed: o.filed, shares: o.shares };
  }
  return splits;
}

/**
 * IFRS borrowings at a balance-sheet date (for filers without us-gaap debt concepts): `Borrowings`
 * where filed, else current (`CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings`, or
 * short-term borrowings plus the current portion of long-term ones) plus non-current
 * (`NoncurrentPortionOfNoncurrentBorrowings`, or `LongtermBorrowings`), plus bonds issued where
 * filed apart (`BondsIssued`, or its current and non-current portions); null when none is filed.
 */
export function ifrsDebtOf(balance: (concepts: readonly string[]) => number | null): number | null {
  const one = (c: string): number | null => balance([`ifrs-full:${c}`]);
  const borrowings =
    one('Borrowings') ??
    sumOrNull([
      one('CurrentBorrowingsAndCurrentPortionOfNoncurrentBorrowings') ?? sumOrNull([one('ShorttermBorrowings'), one('CurrentPortionOfLongtermBorrowings')]),
      one('NoncurrentPortionOfNoncurrentBorrowings') ?? one('LongtermBorrowings'),
    ]);
  const bonds = one('BondsIssued') ?? sumOrNull([one('CurrentPortionOfNoncurrentBondsIssued'), one('NoncurrentPortionOfNoncurrentBondsIssued')]);
  return sumOrNull([borrowings, bonds]);
}

function sumOrNull(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
}

/** 52/53-week years end on a weekday near month end; an end in the first week belongs to the previous month. */
export function fiscalMonthOf(iso: string): number {
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  return day <= 7 ? ((month + 10) % 12) + 1 : month;
}

/** What submissions say of a company's placement: its first exchange, sector (from the SIC code) and fiscal year end. */
export interface SecPlacement {
  exchange: string;
  sector: string;
  fiscalYearEndMonth: number | null;
  /** Its former names as consecutive spans (`formerNames`, src/domain/listings.ts `formerNameSpans`); absent where submissions date none. */
  formerNames?: { name: string; from: string; until: string }[];
}

/**
 * submissions JSON: name, exchanges[], sic, sicDescription, fiscalYearEnd ("0928"), formerNames
 * [{name, from, to}] (EDGAR's conformed names with ISO timestamps). The sector is
 * the SIC code's (`sectorOfSic`, src/sources/sec/sectors.ts); the description is not kept (the
 * Security record has no field for it).
 */
export function parseSubmissions(body: unknown): SecPlacement | null {
  if (!isRecord(body)) return null;
  const exchanges = Array.isArray(body['exchanges']) ? body['exchanges'].filter((e): e is string => typeof e === 'string' && e !== '') : [];
  const fye = str(body, 'fiscalYearEnd');
  const month = /^\d{4}$/.test(fye) ? fiscalMonthOf(`2000-${fye.slice(0, 2)}-${fye.slice(2)}`) : null;
  const formerNames = Array.isArray(body['formerNames'])
    ? formerNameSpans(body['formerNames'].filter(isRecord).map((f) => ({ name: str(f, 'name').trim(), from: str(f, 'from'), to: str(f, 'to') })))
    : [];
  return {
    exchange: (exchanges[0] ?? '').toUpperCase(),
    sector: sectorOfSic(str(body, 'sic')),
    fiscalYearEndMonth: month,
    ...(formerNames.length > 0 ? { formerNames } : {}),
  };
}

export function usSecurity(code: string, name: string, exchange: string, sector: string, fiscalYearEndMonth: number): Security {
  return { market: 'US', code, name, exchange, sector, currency: 'USD', fiscalYearEndMonth, source: SOURCE_NAME };
}

/**
 * The companies of a ticker list: one entry per CIK, its first listed ticker (a CIK lists one
 * per share class; the first is the primary), after limiting the list to `only` when given.
 */
export function companiesOf(universe: readonly TickerEntry[], only?: readonly string[]): Map<number, TickerEntry> {
  const wanted = only ? new Set(only) : null;
  const byCik = new Map<number, TickerEntry>();
  for (const t of universe) if ((wanted === null || wanted.has(t.ticker)) && !byCik.has(t.cik)) byCik.set(t.cik, t);
  return byCik;
}

/** Why a listed company gives no records: stable reasons, counted alike by the API adapter and the bulk reader. */
export const SEC_SKIP = {
  /** The companyfacts API answers 404 for a company without XBRL financials. */
  noFacts: 'company without XBRL financials (companyfacts 404)',
  /** The bulk archive holds a member for it whose `facts` is empty (the API answers 404 for such a company). */
  emptyFacts: 'company without XBRL financials (empty companyfacts)',
  unreadable: 'company whose companyfacts or submissions cannot be read',
} as const;

export type SecCompany =
  | { kind: 'covered'; reports: FinancialReport[]; security: Security; formerNames: FormerName[]; skipped: Record<string, number> }
  | { kind: 'skipped'; reason: string };

/**
 * One company's records from its companyfacts document and its submissions placement (null
 * without submissions: the exchange, sector and year end then fall back to `US`, `Unclassified`
 * and the facts' own year end). The one combination the API adapter and the bulk reader share.
 */
export function secCompany(entry: TickerEntry, factsBody: unknown, placement: SecPlacement | null, usdRates?: ReadonlyMap<string, UsdSeries>): SecCompany {
  const parsed = parseCompanyFacts(factsBody, entry.ticker, usdRates, { financial: isFinancialSector(placement?.sector ?? '') });
  if (parsed === null) return { kind: 'skipped', reason: SEC_SKIP.unreadable };
  if (isRecord(factsBody) && isRecord(factsBody['facts']) && Object.keys(factsBody['facts']).length === 0) {
    return { kind: 'skipped', reason: SEC_SKIP.emptyFacts };
  }
  const security = usSecurity(
    entry.ticker,
    entry.title || parsed.entityName,
    placement?.exchange || 'US',
    placement?.sector ?? 'Unclassified',
    placement?.fiscalYearEndMonth ?? parsed.fiscalYearEndMonth ?? 12,
  );
  if (parsed.annualForm !== null) {
    security.filerBasis = {
      annualForm: parsed.annualForm,
      reportingCurrency: parsed.reportingCurrency,
      usdRates: parsed.rates.map((r) => ({ disclosedOn: r.filed, usdPerUnit: r.usdPerUnit, ...(r.reference ? { reference: r.reference } : {}) })),
    };
  }
  const formerNames = (placement?.formerNames ?? []).map((f) => ({ market: 'US' as const, code: entry.ticker, ...f }));
  return { kind: 'covered', reports: parsed.reports, security, formerNames, skipped: parsed.skipped };
}

/**
 * EDGAR daily index by form type (`Archives/edgar/daily-index/YYYY/QTRn/form.YYYYMMDD.idx`):
 * a header, a dashed line, then fixed-width rows
 * `Form Type   Company Name   CIK   Date Filed   File Name`. Returns CIKs that filed a periodic form:
 * 10-Q/10-K, 20-F/40-F, 6-K (a foreign filer's interim statements come on one) or their amendments.
 */
export function parseDailyFormIndex(text: string): number[] {
  const lines = text.split(/\r?\n/);
  const dash = lines.findIndex((l) => /^-{20,}/.test(l));
  const ciks = new Set<number>();
  for (const line of lines.slice(dash + 1)) {
    const m = /^(\S+(?: \S+)*?)\s{2,}.*?\s(\d{1,10})\s+(\d{8})\s+(\S+)\s*$/.exec(line);
    if (!m || !FORMS.has(m[1] ?? '')) continue;
    ciks.add(Number(m[2]));
  }
  return [...ciks].sort((a, b) => a - b);
}
