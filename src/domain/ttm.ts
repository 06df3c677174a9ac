// Point-in-time discrete quarters and trailing twelve months: the TTM is the last four reported
// quarters as known on a date (by disclosure date: no look-ahead); discrete quarters are derived
// from the cumulative filings; amended or corrected filings replace the originals from their own
// disclosure date; consolidated statements come before separate ones (docs/calculations.md).
//
// A quarter is identified by fiscal year and fiscal quarter, never by calendar month, so a
// June year end works the same as December.

import type { BalanceItem, FinancialReport, FiscalQuarter, FlowItem } from './model.js';
import type { QuarterRef } from './results.js';

export type FlowFigures = Record<FlowItem, number | null>;
export type BalanceFigures = Record<BalanceItem, number | null>;

/**
 * One fiscal quarter's own figures: flows for the three months alone (derived from the
 * year-to-date filings), balances at the quarter's end (from its own filing).
 */
export interface DiscreteQuarter extends QuarterRef, FlowFigures, BalanceFigures {
  /** Basis of the quarter's own filing. */
  consolidated: boolean;
  /** The year-to-date flows of the quarter's own filing, as filed (the TTM is taken from these). */
  ytd: FlowFigures;
  /** The disclosure date of the quarter's own filing. */
  filedOn: string;
}

/**
 * The twelve months to the end of `end`: the flows of the four fiscal quarters ending there,
 * taken from the year-to-date filings (see `ttmEndingAt`). Balances are those of `end`.
 */
export interface Ttm extends FlowFigures {
  end: DiscreteQuarter;
  /** `end` as `2025Q3`. */
  referenceQuarter: string;
  /** The latest disclosure date among the filings the TTM was taken from. */
  disclosedOn: string;
}

export type TtmOrReason = { ttm: Ttm; reason?: undefined } | { ttm: null; reason: string };

export interface TtmView {
  /** Every discrete quarter known at the date, ascending. */
  quarters: DiscreteQuarter[];
  /** The latest fiscal quarter with a filing known at the date. */
  latest: DiscreteQuarter | null;
  /** TTM ending at `latest`. */
  current: TtmOrReason;
  /** TTM ending four quarters before `latest` (the yoy base). */
  yearEarlier: TtmOrReason;
  /** The discrete quarter one year before `latest` (the momentum base); null when not filed. */
  sameQuarterYearEarlier: DiscreteQuarter | null;
}

/** `2025Q3`: fiscal year and quarter of the fiscal year. */
export function quarterLabel(q: { fiscalYear: number; fiscalQuarter: FiscalQuarter }): string {
  return `${q.fiscalYear}Q${q.fiscalQuarter}`;
}

/** Consecutive integer per fiscal quarter: 2024Q4 + 1 = 2025Q1. */
export function ordinalOf(fiscalYear: number, fiscalQuarter: number): number {
  return fiscalYear * 4 + (fiscalQuarter - 1);
}

/** `2025Q3` of `ordinalOf(2025, 3)`. */
export function labelOfOrdinal(ordinal: number): string {
  return `${Math.floor(ordinal / 4)}Q${(ordinal % 4) + 1}`;
}

/** The filings in force for one fiscal period: the latest known version of each basis. */
interface PeriodFilings {
  consolidated?: FinancialReport;
  separate?: FinancialReport;
}

type FilingIndex = Map<number, PeriodFilings>;

/**
 * Files a report under its period, keeping the latest disclosed version of its basis
 * (a correction replaces its original). On an equal disclosure date the later one given wins.
 */
function fileReport(index: FilingIndex, report: FinancialReport): void {
  const ordinal = ordinalOf(report.fiscalYear, report.fiscalQuarter);
  let period = index.get(ordinal);
  if (!period) {
    period = {};
    index.set(ordinal, period);
  }
  const basis = report.consolidated ? 'consolidated' : 'separate';
  const held = period[basis];
  if (!held || held.disclosedOn <= report.disclosedOn) period[basis] = report;
}

function derive(index: FilingIndex, ordinal: number): DiscreteQuarter | null {
  const period = index.get(ordinal);
  const own = period?.consolidated ?? period?.separate;
  if (!own) return null;
  // Qn = YTD(Qn) - YTD(Qn-1) only within one basis: subtracting a separate 9M from a
  // consolidated FY would mix two different reporting entities, so the flows are null instead.
  const before =
    own.fiscalQuarter === 1
      ? undefined
      : own.consolidated
        ? index.get(ordinal - 1)?.consolidated
        : index.get(ordinal - 1)?.separate;
  // Every key written in one literal, in the quarter's key order: filled in by computed keys
  // after a partial literal, V8 keeps the quarters as dictionaries, and deriving them becomes
  // a fifth of a full-size recompute's CPU.
  const q1 = own.fiscalQuarter === 1;
  const minus = (ytd: number | null, ytdBefore: number | null | undefined): number | null => {
    if (q1) return ytd;
    return ytd === null || ytdBefore === null || ytdBefore === undefined ? null : ytd - ytdBefore;
  };
  return {
    fiscalYear: own.fiscalYear,
    fiscalQuarter: own.fiscalQuarter,
    periodEnd: own.periodEnd,
    disclosedOn: before && before.disclosedOn > own.disclosedOn ? before.disclosedOn : own.disclosedOn,
    consolidated: own.consolidated,
    ytd: {
      revenue: own.revenue,
      costOfSales: own.costOfSales,
      operatingIncome: own.operatingIncome,
      netIncome: own.netIncome,
      operatingCashFlow: own.operatingCashFlow,
      capex: own.capex,
      interestExpense: own.interestExpense,
      basicEps: own.basicEps,
      dividendPerShare: own.dividendPerShare,
    },
    filedOn: own.disclosedOn,
    revenue: minus(own.revenue, before?.revenue),
    costOfSales: minus(own.costOfSales, before?.costOfSales),
    operatingIncome: minus(own.operatingIncome, before?.operatingIncome),
    netIncome: minus(own.netIncome, before?.netIncome),
    operatingCashFlow: minus(own.operatingCashFlow, before?.operatingCashFlow),
    capex: minus(own.capex, before?.capex),
    interestExpense: minus(own.interestExpense, before?.interestExpense),
    basicEps: minus(own.basicEps, before?.basicEps),
    dividendPerShare: minus(own.dividendPerShare, before?.dividendPerShare),
    totalAssets: own.totalAssets,
    currentAssets: own.currentAssets,
    totalLiabilities: own.totalLiabilities,
    currentLiabilities: own.currentLiabilities,
    equity: own.equity,
    cash: own.cash,
    debt: own.debt,
    receivables: own.receivables,
    inventory: own.inventory,
    payables: own.payables,
    shares: own.shares,
  };
}

/**
 * The discrete quarters as they were known at `asOf`: only filings disclosed on or before
 * `asOf`; per fiscal period the consolidated filing before the separate one, then the latest
 * disclosure. Q1 = YTD(Q1); Qn = YTD(Qn) - YTD(Qn-1) of the same fiscal year, null when either
 * is missing. Ascending by fiscal year and quarter.
 */
export function discreteQuarters(reports: readonly FinancialReport[], asOf: string): DiscreteQuarter[] {
  const index: FilingIndex = new Map();
  for (const r of reports) if (r.disclosedOn <= asOf) fileReport(index, r);
  const out: DiscreteQuarter[] = [];
  for (const ordinal of [...index.keys()].sort((a, b) => a - b)) {
    const q = derive(index, ordinal);
    if (q) out.push(q);
  }
  return out;
}

/**
 * The TTM ending at fiscal quarter `endOrdinal`, from the year-to-date filings (Korean
 * and US reports are cumulative: Q1, H1, 9M, FY). Ending at a fiscal year end it is that year's annual
 * figure; ending at Qn (n < 4) it is YTD(Qn) + FY(previous year) - YTD(Qn of the previous
 * year). That is the sum of the four discrete quarters written with the quarters between
 * cancelled, so it needs three filings, not up to seven: a company whose quarterly filings are
 * missing (OpenDART recordings of annual reports only, a quarter a provider could not give)
 * still has its TTM at each year end. The three filings must be on one basis (consolidated or
 * separate): mixing them would mix two reporting entities.
 */
function ttmEndingAt(lookup: (ordinal: number) => DiscreteQuarter | null, endOrdinal: number): TtmOrReason {
  const end = lookup(endOrdinal);
  if (!end) return { ttm: null, reason: `no filing for ${labelOfOrdinal(endOrdinal)}` };
  const parts: { q: DiscreteQuarter; sign: 1 | -1 }[] = [{ q: end, sign: 1 }];
  if (end.fiscalQuarter !== 4) {
    for (const [ordinal, sign] of [[endOrdinal - end.fiscalQuarter, 1], [endOrdinal - 4, -1]] as const) {
      const q = lookup(ordinal);
      if (!q) return { ttm: null, reason: `no filing for ${labelOfOrdinal(ordinal)}` };
      if (q.consolidated !== end.consolidated) {
        return { ttm: null, reason: `${labelOfOrdinal(ordinal)} filed only ${q.consolidated ? 'consolidated' : 'separate'}, ${quarterLabel(end)} ${end.consolidated ? 'consolidated' : 'separate'}` };
      }
      parts.push({ q, sign });
    }
  }
  let disclosedOn = end.filedOn;
  for (const { q } of parts) if (q.filedOn > disclosedOn) disclosedOn = q.filedOn;
  const sum = (item: FlowItem): number | null => {
    let total: number | null = 0;
    for (const { q, sign } of parts) {
      const v = q.ytd[item];
      if (v === null) return null;
      total += sign * v;
    }
    return total;
  };
  // One literal with every key (as `derive`'s quarters), in the order the TTM has always had.
  const ttm: Ttm = {
    end,
    referenceQuarter: quarterLabel(end),
    disclosedOn,
    revenue: sum('revenue'),
    costOfSales: sum('costOfSales'),
    operatingIncome: sum('operatingIncome'),
    netIncome: sum('netIncome'),
    operatingCashFlow: sum('operatingCashFlow'),
    capex: sum('capex'),
    interestExpense: sum('interestExpense'),
    basicEps: sum('basicEps'),
    dividendPerShare: sum('dividendPerShare'),
  };
  return { ttm };
}

/**
 * TTM from an already point-in-time list of discrete quarters (as `discreteQuarters` gives):
 * the TTM ending at the latest quarter and the one ending four quarters earlier (`ttmEndingAt`),
 * a flow null when a filing it needs lacks it, no TTM (with the reason) when a filing it needs
 * is missing.
 */
export function ttmOfQuarters(quarters: readonly DiscreteQuarter[]): TtmView {
  const byOrdinal = new Map<number, DiscreteQuarter>();
  let latest: DiscreteQuarter | null = null;
  let latestOrdinal = -Infinity;
  for (const q of quarters) {
    const o = ordinalOf(q.fiscalYear, q.fiscalQuarter);
    byOrdinal.set(o, q);
    if (o > latestOrdinal) {
      latestOrdinal = o;
      latest = q;
    }
  }
  if (!latest) {
    const reason = 'no quarterly report disclosed';
    return { quarters: [...quarters], latest, current: { ttm: null, reason }, yearEarlier: { ttm: null, reason }, sameQuarterYearEarlier: null };
  }
  const lookup = (o: number): DiscreteQuarter | null => byOrdinal.get(o) ?? null;
  return {
    quarters: [...quarters],
    latest,
    current: ttmEndingAt(lookup, latestOrdinal),
    yearEarlier: ttmEndingAt(lookup, latestOrdinal - 4),
    sameQuarterYearEarlier: lookup(latestOrdinal - 4),
  };
}

/** `ttmOfQuarters(discreteQuarters(reports, asOf))`: the TTM as known at `asOf`. */
export function ttmAsOf(reports: readonly FinancialReport[], asOf: string): TtmView {
  return ttmOfQuarters(discreteQuarters(reports, asOf));
}

/** One step of the TTM as a function of time: in force from `effectiveFrom` until the next step. */
export interface TtmStep {
  effectiveFrom: string;
  /** Latest fiscal quarter known from this date, e.g. `2025Q3`. */
  referenceQuarter: string;
  /** TTM net income; null when no TTM is available. */
  netIncome: number | null;
  /** TTM revenue; null when no TTM is available. */
  revenue: number | null;
  /** Equity at the end of the latest known quarter. */
  equity: number | null;
  /** Shares at the end of the latest known quarter. */
  shares: number | null;
}

/**
 * The TTM figures the valuation band needs as a step function of time: a step at each
 * disclosure date on which one of them changed. Sorting the filings once and updating the
 * filing index per date keeps this O(filings log filings); a daily sweep over it is then
 * O(days + steps). Agrees with `ttmAsOf` at every date.
 */
export function ttmTimeline(reports: readonly FinancialReport[]): TtmStep[] {
  const sorted = [...reports].sort((a, b) => (a.disclosedOn < b.disclosedOn ? -1 : a.disclosedOn > b.disclosedOn ? 1 : 0));
  const index: FilingIndex = new Map();
  // Each date needs up to four discrete quarters, nearly all unchanged since the date before:
  // a quarter is derived again only once a filing for it or for the quarter before it (whose
  // year-to-date figures it subtracts) has come in. Deriving every quarter again at every date
  // would be a third of a band's first call at full size.
  const derived = new Map<number, DiscreteQuarter | null>();
  const lookup = (o: number): DiscreteQuarter | null => {
    let q = derived.get(o);
    if (q === undefined) {
      q = derive(index, o);
      derived.set(o, q);
    }
    return q;
  };
  const steps: TtmStep[] = [];
  let latestOrdinal = -Infinity;
  let i = 0;
  while (i < sorted.length) {
    const date = (sorted[i] as FinancialReport).disclosedOn;
    for (; i < sorted.length && (sorted[i] as FinancialReport).disclosedOn === date; i++) {
      const r = sorted[i] as FinancialReport;
      fileReport(index, r);
      const ordinal = ordinalOf(r.fiscalYear, r.fiscalQuarter);
      derived.delete(ordinal);
      derived.delete(ordinal + 1);
      latestOrdinal = Math.max(latestOrdinal, ordinal);
    }
    const latest = lookup(latestOrdinal) as DiscreteQuarter;
    const { ttm } = ttmEndingAt(lookup, latestOrdinal);
    const step: TtmStep = {
      effectiveFrom: date,
      referenceQuarter: quarterLabel(latest),
      netIncome: ttm?.netIncome ?? null,
      revenue: ttm?.revenue ?? null,
      equity: latest.equity,
      shares: latest.shares,
    };
    const prev = steps[steps.length - 1];
    if (
      !prev ||
      prev.referenceQuarter !== step.referenceQuarter ||
      prev.netIncome !== step.netIncome ||
      prev.revenue !== step.revenue ||
      prev.equity !== step.equity ||
      prev.shares !== step.shares
    )
      steps.push(step);
  }
  return steps;
}
