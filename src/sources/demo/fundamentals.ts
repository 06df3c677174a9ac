// One demo company's business, quarter by quarter: revenue, margins, cash flows and a
// balance sheet that always balances, plus the market value the business supports and the
// listed share count over time. Prices and filings are both derived from this model, which
// is what keeps PER, PBR and PSR plausible.
//
// The model is built in relative units (first-quarter revenue = 100) and scaled at the end so
// that the value it supports on the reference date equals the company's target market cap.
// Quarters are generated up to a fixed horizon that does not depend on `asOf`, so moving the
// as-of date forward discloses new filings without rewriting old ones.

import type { FinancialReport, FiscalQuarter, Market } from '../../domain/model.js';
import { dayNumber, isWeekend, isoDate, lastDayOfMonth } from './calendar.js';
import { Rng } from './random.js';
import type { CompanyProfile } from './universe.js';

/** First fiscal year with filings: TTM and TTM four quarters earlier then exist from 2014. */
const FIRST_FISCAL_YEAR = 2012;
/** Revenue seasonality by fiscal quarter: a slow first quarter, a strong year end. */
const SEASONAL_PATTERN = [-0.6, 0, 0.1, 0.5];
/**
 * Date on which a company's value is scaled to its target market cap (when `asOf` is later).
 * Fixed, so that fundamentals do not shift as the as-of date advances.
 */
export const REFERENCE_DATE = '2026-06-30';

export interface Discrete {
  revenue: number;
  costOfSales: number;
  operatingIncome: number;
  netIncome: number;
  operatingCashFlow: number;
  capex: number;
  interestExpense: number;
}

export interface Balances {
  totalAssets: number;
  currentAssets: number;
  totalLiabilities: number;
  currentLiabilities: number;
  equity: number;
  cash: number;
  debt: number;
  receivables: number;
  inventory: number;
  payables: number;
}

export interface QuarterRecord {
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  periodEndDay: number;
  disclosedOn: string;
  /** A restatement of this filing, if the company made one. */
  correction: { disclosedOn: string; netIncomePct: number } | null;
  /** The quarter alone (not year-to-date), in money. */
  flows: Discrete;
  balances: Balances;
  /** Market value the business supported at period end, in money. */
  value: number;
}

export interface CompanyModel {
  quarters: QuarterRecord[];
  /** Listed shares: `shares[i]` from day number `fromDay[i]` on. */
  shareSteps: { fromDay: number; shares: number }[];
}

/** Fiscal period end: quarter q of fiscal year fy for a year ending in month fyeMonth. */
export function fiscalPeriodEnd(fiscalYear: number, quarter: FiscalQuarter, fyeMonth: number): string {
  const index = fiscalYear * 12 + (fyeMonth - 1) - 3 * (4 - quarter);
  return lastDayOfMonth(Math.floor(index / 12), (index % 12) + 1);
}

export function sharesOn(model: CompanyModel, day: number): number {
  const steps = model.shareSteps;
  let shares = steps[0]?.shares ?? 0;
  for (const step of steps) {
    if (step.fromDay > day) break;
    shares = step.shares;
  }
  return shares;
}

/** Log-linear interpolation of the supported value between period ends; flat outside. */
export function valueOn(model: CompanyModel, day: number): number {
  const q = model.quarters;
  const first = q[0];
  if (first === undefined) return 0;
  if (day <= first.periodEndDay) return first.value;
  for (let i = 1; i < q.length; i++) {
    const b = q[i] as QuarterRecord;
    if (day <= b.periodEndDay) {
      const a = q[i - 1] as QuarterRecord;
      const t = (day - a.periodEndDay) / (b.periodEndDay - a.periodEndDay);
      return Math.exp(Math.log(a.value) * (1 - t) + Math.log(b.value) * t);
    }
  }
  return (q[q.length - 1] as QuarterRecord).value;
}

interface RelativeQuarter {
  fiscalYear: number;
  fiscalQuarter: FiscalQuarter;
  periodEnd: string;
  periodEndDay: number;
  disclosedOn: string;
  correction: { disclosedOn: string; netIncomePct: number } | null;
  flows: Discrete;
  // Balance sheet building blocks (relative units); cash is the plug.
  receivables: number;
  inventory: number;
  payables: number;
  otherCurrentAssets: number;
  fixedAssets: number;
  otherNonCurrentAssets: number;
  otherCurrentLiabilities: number;
  otherNonCurrentLiabilities: number;
  debt: number;
  equity: number;
  cash: number;
  value: number;
}

/** Days after period end a filing appears, moved off weekends to the preceding Friday. */
function disclosureDate(periodEnd: string, lagDays: number): string {
  let day = dayNumber(periodEnd) + lagDays;
  while (isWeekend(day)) day--;
  return isoDate(day);
}

export function buildCompanyModel(profile: CompanyProfile, seed: number, asOf: string): CompanyModel {
  const { security, archetype, economics } = profile;
  const market: Market = security.market;
  const rng = new Rng(seed, `fundamentals:${market}:${security.code}`);
  const horizon = asOf > REFERENCE_DATE ? asOf : REFERENCE_DATE;
  const referenceDay = dayNumber(asOf < REFERENCE_DATE ? asOf : REFERENCE_DATE);

  // --- Company parameters (drawn up front, the same number of draws for every archetype).
  const grossMarginBase = rng.uniform(economics.grossMargin[0], economics.grossMargin[1]);
  const marginBase = Math.min(rng.uniform(economics.operatingMargin[0], economics.operatingMargin[1]), grossMarginBase - 0.03);
  const steadyGrowth = rng.uniform(0.003, 0.02);
  const fastGrowth = rng.uniform(0.03, 0.06);
  const cycleAmplitude = rng.uniform(0.12, 0.3);
  const cycleMarginSwing = rng.uniform(1.1, 2.0) * marginBase;
  const cyclePeriod = rng.uniform(12, 20);
  const cyclePhase = rng.uniform(0, 2 * Math.PI);
  // Persistent losses must be survivable for fourteen years: a few to fifteen percent of sales.
  const lossMargin = -rng.uniform(0.03, 0.15);
  const seasonalAmplitude = rng.uniform(0, 0.08);
  const taxRate = (market === 'KR' ? 0.22 : 0.21) + rng.uniform(-0.03, 0.03);
  const interestRate = rng.uniform(0.025, 0.06) / 4;
  const payoutRatio = rng.uniform(0.1, 0.45);
  const leverage = economics.leverage * rng.uniform(0.3, 1.6);
  const otherAssetRatio = rng.uniform(0.1, 0.4);
  const receivableDays = economics.receivableDays * rng.uniform(0.7, 1.3);
  const inventoryDays = economics.inventoryDays * rng.uniform(0.7, 1.3);
  const payableDays = (economics.inventoryDays > 0 ? 45 : 20) * rng.uniform(0.7, 1.3);
  const startingCash = rng.uniform(0.08, 0.35);
  const per = rng.uniform(economics.per[0], economics.per[1]);
  const psr = per * economics.operatingMargin[0] * rng.uniform(0.5, 1.0);
  // Loss-makers are priced on their sales (and the hope of margins), not on thin multiples.
  const hopefulPsr = rng.uniform(0.6, 2.0);
  const pbr = rng.uniform(0.3, 0.7);
  const hype = rng.uniform(6, 25);
  const burnGrowth = rng.uniform(0.005, 0.03);
  const leveragedBuyback = market === 'US' ? rng.chance(0.7) : rng.chance(0.3);
  const negativeEquityStart = rng.uniform(0.05, 0.35);
  const turnDay = dayNumber('2024-10-01') + rng.int(0, 364);
  const issuesShares = archetype === 'growth' || archetype === 'lossMaker' || archetype === 'turnaround';
  const recapitalises = archetype === 'lossMaker' || archetype === 'turnaround';

  const leveragedPayout = archetype === 'negativeEquity' && leveragedBuyback;
  const distressed = archetype === 'negativeEquity' && !leveragedBuyback;
  const debtFree = archetype === 'debtFree';
  const biotech = archetype === 'biotech';

  const quarters: RelativeQuarter[] = [];
  const shareEvents: { day: number; factor: number }[] = [];
  let level = 100;
  let revenueNoise = 0;
  let marginNoise = 0;
  let burn = 10;

  for (let i = 0; ; i++) {
    const fiscalYear = FIRST_FISCAL_YEAR + Math.floor(i / 4);
    const fiscalQuarter = ((i % 4) + 1) as FiscalQuarter;
    const periodEnd = fiscalPeriodEnd(fiscalYear, fiscalQuarter, security.fiscalYearEndMonth);
    if (periodEnd > horizon) break;
    const periodEndDay = dayNumber(periodEnd);
    const years = (periodEndDay - dayNumber('2012-01-01')) / 365.25;
    const prev = quarters[i - 1];

    // Per-quarter draws: always the same count, so earlier quarters never depend on later ones.
    const zRevenue = rng.normal();
    const zMargin = rng.normal();
    const zOther = rng.normal();
    const zCash = rng.normal();
    const eventRoll = rng.next();
    const eventOffset = rng.int(5, 80);
    const eventSize = rng.next();
    const lagDays = fiscalQuarter === 4 ? rng.int(60, 90) : rng.int(40, 50);
    const correctionRoll = rng.next();
    // Shifted off weekends to the Friday before, so 22..198 keeps it 20..200 days later.
    const correctionLag = rng.int(22, 198);
    const correctionPct = rng.uniform(0.02, 0.06) * (rng.chance(0.5) ? 1 : -1);

    // --- Revenue.
    const growth =
      archetype === 'growth' ? fastGrowth * (1 - 0.5 * Math.min(years / 15, 1))
      : archetype === 'lossMaker' ? steadyGrowth * 1.2 - 0.004
      : steadyGrowth;
    if (i > 0) level *= Math.exp(growth);
    revenueNoise = 0.6 * revenueNoise + 0.03 * zRevenue;
    const seasonal = 1 + seasonalAmplitude * (SEASONAL_PATTERN[fiscalQuarter - 1] ?? 0);
    const cycle = archetype === 'cyclical' ? 1 + cycleAmplitude * Math.sin((2 * Math.PI * i) / cyclePeriod + cyclePhase) : 1;
    const revenue = biotech ? 0 : level * seasonal * cycle * Math.exp(revenueNoise);

    // --- Margins by archetype.
    marginNoise = 0.5 * marginNoise + 0.01 * zMargin;
    let margin: number;
    switch (archetype) {
      case 'growth':
        margin = marginBase * (0.35 + 0.75 * Math.min(years / 14, 1));
        break;
      case 'cyclical':
        margin = marginBase + cycleMarginSwing * Math.sin((2 * Math.PI * i) / cyclePeriod + cyclePhase);
        break;
      case 'lossMaker':
        margin = lossMargin;
        break;
      case 'turnaround': {
        const quartersSinceTurn = (periodEndDay - turnDay) / 91;
        margin = quartersSinceTurn < 0 ? Math.min(lossMargin, -0.03) : Math.min(1, 0.5 + quartersSinceTurn / 4) * Math.max(marginBase, 0.05);
        break;
      }
      case 'negativeEquity':
        // Distressed: thin losses that, financed by debt, keep equity below zero.
        margin = distressed ? 0.3 * lossMargin : marginBase;
        break;
      default:
        margin = marginBase;
    }
    margin += marginNoise;
    const grossMargin = Math.max(grossMarginBase, margin + 0.03);

    const quarterlyScale = biotech ? burn : Math.max(revenue, 1);
    const trailingRevenue = biotech ? 0 : trailingSum(quarters, i, revenue, (q) => q.flows.revenue);
    const scaleBase = biotech ? 4 * burn : trailingRevenue;

    // --- Income statement.
    const costOfSales = biotech ? 0 : revenue * (1 - grossMargin);
    if (biotech && i > 0) burn *= Math.exp(burnGrowth + 0.05 * zMargin);
    const operatingIncome = biotech ? -burn : revenue * margin;
    const debtBefore = prev?.debt ?? (debtFree ? 0 : leverage * scaleBase);
    const interestExpense = debtFree ? 0 : debtBefore * interestRate;
    const otherIncome = 0.004 * quarterlyScale * zOther + (biotech ? 0.01 * (prev?.cash ?? 0) : 0);
    const pretax = operatingIncome - interestExpense + otherIncome;
    const netIncome = pretax > 0 ? pretax * (1 - taxRate) : pretax;

    // --- Fixed assets and working capital.
    const fixedTarget = biotech ? 2 * burn : economics.fixedAssetIntensity * scaleBase;
    const fixedBefore = prev?.fixedAssets ?? fixedTarget;
    const depreciation = fixedBefore * 0.025;
    const capex = Math.max(depreciation + 0.25 * (fixedTarget - fixedBefore), 0.1 * depreciation, 0.002 * quarterlyScale);
    const fixedAssets = fixedBefore + capex - depreciation;
    const receivables = (revenue * receivableDays) / 91;
    const inventory = (costOfSales * inventoryDays) / 91;
    const payables = ((biotech ? burn * 0.5 : costOfSales) * payableDays) / 91;
    const workingCapital = receivables + inventory - payables;
    const workingCapitalBefore = prev ? prev.receivables + prev.inventory - prev.payables : workingCapital;
    const operatingCashFlow = netIncome + depreciation - (workingCapital - workingCapitalBefore) + 0.015 * quarterlyScale * zCash;

    // --- Share issues and buybacks; money raised at the value the market put on the company.
    const valueBefore = prev?.value ?? 0;
    let shareFactor = 1;
    const cashBefore = prev?.cash ?? Infinity;
    const equityBefore = prev?.equity ?? Infinity;
    if (biotech && i > 0 && cashBefore < 5 * burn) shareFactor = 1.12 + 0.2 * eventSize;
    else if (recapitalises && equityBefore < 0.25 * scaleBase && valueBefore > 0) {
      // Persistent loss-makers survive by selling new shares whenever equity runs thin.
      shareFactor = 1 + Math.min((0.6 * scaleBase - equityBefore) / valueBefore, 0.5);
    }
    else if (eventRoll < 0.035 && i > 0) {
      shareFactor = issuesShares || biotech || distressed ? 1.02 + 0.12 * eventSize : 0.96 + 0.035 * eventSize;
    }
    if (shareFactor !== 1) shareEvents.push({ day: periodEndDay - 91 + eventOffset, factor: shareFactor });
    const equityFromShares = (shareFactor - 1) * valueBefore;

    // --- Equity.
    const paysDividends = netIncome > 0 && !biotech && archetype !== 'growth' && archetype !== 'lossMaker';
    const dividends = paysDividends ? netIncome * (leveragedPayout ? 1.05 : payoutRatio) : 0;
    const otherAssets = otherAssetRatio * scaleBase;
    const otherCurrentAssets = 0.05 * scaleBase;
    const otherCurrentLiabilities = 0.06 * scaleBase + 0.2 * burn * (biotech ? 1 : 0);
    let otherNonCurrentLiabilities = 0.03 * scaleBase;
    const nonCashAssets = receivables + inventory + otherCurrentAssets + fixedAssets + otherAssets;
    const nonDebtLiabilities = payables + otherCurrentLiabilities + otherNonCurrentLiabilities;
    let equity: number;
    if (prev === undefined) {
      const openingCash = biotech ? 12 * burn : startingCash * scaleBase;
      const openingDebt = debtFree ? 0 : leverage * scaleBase;
      equity =
        archetype === 'negativeEquity' ? -negativeEquityStart * scaleBase
        // Heavily geared sectors (banks, REITs) would start insolvent; they start thinly capitalised.
        : Math.max(nonCashAssets + openingCash - nonDebtLiabilities - openingDebt, 0.3 * scaleBase);
    } else {
      equity = prev.equity + netIncome - dividends + equityFromShares;
    }

    // --- Debt: drift toward the target leverage; cash is the balancing item.
    const debtTarget = debtFree ? 0 : (archetype === 'negativeEquity' ? 1.5 : 1) * leverage * scaleBase;
    let debt = prev === undefined ? debtTarget : debtBefore + 0.3 * (debtTarget - debtBefore);
    if (debtFree) debt = 0;
    let cash = equity + nonDebtLiabilities + debt - nonCashAssets;
    const minimumCash = 0.03 * scaleBase + (biotech ? 1.5 * burn : 0);
    if (cash < minimumCash) {
      // Short of cash: a debt-free company stretches other liabilities; others borrow.
      if (debtFree) otherNonCurrentLiabilities += minimumCash - cash;
      else debt += minimumCash - cash;
      cash = minimumCash;
    }
    const comfortableCash = minimumCash + 0.3 * scaleBase;
    // Spare cash repays borrowings, but a company keeps its usual credit lines (half its
    // target debt): debt-free balance sheets are a trait of some companies, not of success.
    const repayable = debt - 0.5 * debtTarget;
    if (cash > comfortableCash && repayable > 0) {
      const repay = Math.min(repayable, 0.5 * (cash - comfortableCash));
      debt -= repay;
      cash -= repay;
    }

    // --- Value the market puts on the business: earnings when it has them, else sales,
    // book value or (biotech) the pipeline, which the market prices off the cash it burns.
    const trailingIncome = trailingSum(quarters, i, netIncome, (q) => q.flows.netIncome);
    const value = Math.max(
      per * trailingIncome,
      (recapitalises || distressed ? Math.max(psr, hopefulPsr) : psr) * trailingRevenue,
      pbr * equity,
      biotech ? hype * 4 * burn : 0,
      0.05 * Math.max(scaleBase, 1),
    );

    const disclosedOn = disclosureDate(periodEnd, lagDays);
    quarters.push({
      fiscalYear,
      fiscalQuarter,
      periodEnd,
      periodEndDay,
      disclosedOn,
      correction: correctionRoll < 0.03 ? { disclosedOn: disclosureDate(disclosedOn, correctionLag), netIncomePct: correctionPct } : null,
      flows: { revenue, costOfSales, operatingIncome, netIncome, operatingCashFlow, capex, interestExpense },
      receivables,
      inventory,
      payables,
      otherCurrentAssets,
      fixedAssets,
      otherNonCurrentAssets: otherAssets,
      otherCurrentLiabilities,
      otherNonCurrentLiabilities,
      debt,
      equity,
      cash,
      value,
    });
  }

  // --- Scale relative units to money so the value on the reference date is the target cap.
  const provisional: CompanyModel = {
    quarters: quarters.map((q) => ({ periodEndDay: q.periodEndDay, value: q.value }) as QuarterRecord),
    shareSteps: [],
  };
  const scale = profile.targetMarketCap / valueOn(provisional, referenceDay);
  const records = quarters.map((q) => toMoney(q, scale));

  // --- Share count: fixed by the target price on the reference date, events around it.
  shareEvents.sort((a, b) => a.day - b.day);
  const referenceShares = profile.targetMarketCap / profile.targetPrice;
  let factorToReference = 1;
  for (const event of shareEvents) if (event.day <= referenceDay) factorToReference *= event.factor;
  let shares = referenceShares / factorToReference;
  const shareSteps = [{ fromDay: -Infinity, shares: Math.max(1, Math.round(shares)) }];
  for (const event of shareEvents) {
    shares *= event.factor;
    shareSteps.push({ fromDay: event.day, shares: Math.max(1, Math.round(shares)) });
  }
  return { quarters: records, shareSteps };
}

function trailingSum(quarters: readonly RelativeQuarter[], i: number, current: number, item: (q: RelativeQuarter) => number): number {
  let sum = current;
  let n = 1;
  for (let k = i - 1; k >= 0 && k >= i - 3; k--) {
    sum += item(quarters[k] as RelativeQuarter);
    n++;
  }
  return (sum * 4) / n;
}

/** Scale to money and round to whole units, keeping assets = liabilities + equity exactly. */
function toMoney(q: RelativeQuarter, scale: number): QuarterRecord {
  const m = (x: number): number => Math.round(x * scale);
  const flows: Discrete = {
    revenue: m(q.flows.revenue),
    costOfSales: m(q.flows.costOfSales),
    operatingIncome: m(q.flows.operatingIncome),
    netIncome: m(q.flows.netIncome),
    operatingCashFlow: m(q.flows.operatingCashFlow),
    capex: Math.max(1, m(q.flows.capex)),
    interestExpense: m(q.flows.interestExpense),
  };
  const receivables = m(q.receivables);
  const inventory = m(q.inventory);
  const payables = m(q.payables);
  const otherCurrentAssets = m(q.otherCurrentAssets);
  const nonCurrentAssets = m(q.fixedAssets) + m(q.otherNonCurrentAssets);
  const otherCurrentLiabilities = m(q.otherCurrentLiabilities);
  const otherNonCurrentLiabilities = m(q.otherNonCurrentLiabilities);
  let debt = m(q.debt);
  const equity = m(q.equity);
  let cash = m(q.equity) + payables + otherCurrentLiabilities + otherNonCurrentLiabilities + debt - (receivables + inventory + otherCurrentAssets + nonCurrentAssets);
  if (cash < 0) {
    // Rounding can leave a company a few units short; it borrows them.
    debt -= cash;
    cash = 0;
  }
  const totalLiabilities = payables + otherCurrentLiabilities + otherNonCurrentLiabilities + debt;
  const currentAssets = cash + receivables + inventory + otherCurrentAssets;
  return {
    fiscalYear: q.fiscalYear,
    fiscalQuarter: q.fiscalQuarter,
    periodEnd: q.periodEnd,
    periodEndDay: q.periodEndDay,
    disclosedOn: q.disclosedOn,
    correction: q.correction,
    flows,
    balances: {
      totalAssets: totalLiabilities + equity,
      currentAssets,
      totalLiabilities,
      currentLiabilities: payables + otherCurrentLiabilities + Math.round(0.3 * debt),
      equity,
      cash,
      debt,
      receivables,
      inventory,
      payables,
    },
    value: q.value * scale,
  };
}

/**
 * The filings of one company as of `asOf`: year-to-date flows (discrete quarters cumulated
 * within the fiscal year), period-end balances, and restatements after their originals.
 */
export function reportsFromModel(profile: CompanyProfile, model: CompanyModel, asOf: string): FinancialReport[] {
  const { market, code } = profile.security;
  const reports: FinancialReport[] = [];
  const payout = demoPayoutRatio(code);
  let ytd: Discrete | null = null;
  for (const q of model.quarters) {
    ytd = q.fiscalQuarter === 1 || ytd === null ? { ...q.flows } : addFlows(ytd, q.flows);
    if (q.disclosedOn > asOf) continue;
    const shares = sharesOn(model, q.periodEndDay);
    const original: FinancialReport = {
      market,
      code,
      fiscalYear: q.fiscalYear,
      fiscalQuarter: q.fiscalQuarter,
      periodEnd: q.periodEnd,
      disclosedOn: q.disclosedOn,
      consolidated: profile.consolidated,
      ...ytd,
      basicEps: demoBasicEps(market, ytd.netIncome, shares),
      dividendPerShare: demoDividendPerShare(market, q.fiscalQuarter, ytd.netIncome, shares, payout),
      ...q.balances,
      shares,
      source: 'demo',
    };
    reports.push(original);
    if (q.correction !== null && q.correction.disclosedOn <= asOf) reports.push(restate(original, q.correction));
  }
  return reports;
}

/**
 * The share of net income a demo company pays out: 0, 15, 25 or 35 % by the sum of its code's
 * character codes (no draw from the company's random stream, which would move every other figure).
 */
export function demoPayoutRatio(code: string): number {
  let sum = 0;
  for (const ch of code) sum += ch.charCodeAt(0);
  return [0, 0.15, 0.25, 0.35][sum % 4] as number;
}

/**
 * Basic EPS as a KR filing states it: year-to-date net income over the period-end shares, in
 * whole won. US filings carry none (the US path divides by the shares, as for SEC filers).
 */
function demoBasicEps(market: Market, ytdNetIncome: number, shares: number): number | null {
  return market === 'KR' && shares > 0 ? Math.round(ytdNetIncome / shares) : null;
}

/**
 * Dividends declared per share, year to date: KR companies declare once, with the annual report
 * (0 in the quarterly reports, as their dividend sections say `-`), in whole won; US companies
 * every quarter, in cents. `payout` of the year-to-date net income when it is positive, else 0.
 */
function demoDividendPerShare(market: Market, quarter: FiscalQuarter, ytdNetIncome: number, shares: number, payout: number): number {
  if (shares <= 0 || ytdNetIncome <= 0) return 0;
  if (market === 'KR') return quarter === 4 ? Math.round((payout * ytdNetIncome) / shares) : 0;
  return Math.round((100 * payout * ytdNetIncome) / shares) / 100;
}

function addFlows(a: Discrete, b: Discrete): Discrete {
  return {
    revenue: a.revenue + b.revenue,
    costOfSales: a.costOfSales + b.costOfSales,
    operatingIncome: a.operatingIncome + b.operatingIncome,
    netIncome: a.netIncome + b.netIncome,
    operatingCashFlow: a.operatingCashFlow + b.operatingCashFlow,
    capex: a.capex + b.capex,
    interestExpense: a.interestExpense + b.interestExpense,
  };
}

/**
 * A restatement: net income revised by a few percent (at least one unit), and equity by the
 * same amount through retained earnings. The balance sheet stays balanced: a higher equity
 * is held as cash; a lower one becomes an accrued liability when cash cannot absorb it.
 */
function restate(original: FinancialReport, correction: { disclosedOn: string; netIncomePct: number }): FinancialReport {
  const netIncome = original.netIncome ?? 0;
  const magnitude = Math.max(1, Math.round(Math.abs(netIncome * correction.netIncomePct)));
  const change = correction.netIncomePct >= 0 ? magnitude : -magnitude;
  const revised: FinancialReport = { ...original, disclosedOn: correction.disclosedOn, netIncome: netIncome + change };
  if (original.basicEps !== null && original.shares !== null) revised.basicEps = demoBasicEps(original.market, netIncome + change, original.shares);
  const equity = original.equity ?? 0;
  const cash = original.cash ?? 0;
  revised.equity = equity + change;
  if (change > 0 || cash + change >= 0) {
    revised.cash = cash + change;
    revised.currentAssets = (original.currentAssets ?? 0) + change;
    revised.totalAssets = (original.totalAssets ?? 0) + change;
  } else {
    revised.totalLiabilities = (original.totalLiabilities ?? 0) - change;
    revised.currentLiabilities = (original.currentLiabilities ?? 0) - change;
  }
  return revised;
}
