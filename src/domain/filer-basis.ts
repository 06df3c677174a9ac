// What a foreign private issuer's (20-F/40-F) snapshot says of how its figures were made
// (docs/calculations.md, "Foreign private issuers"): the currency of its statements and the rate
// its TTM's figures were converted into USD at (with where the rate comes from), what its TTM is
// made of (a yearly reporter's is its latest fiscal year; an interim filer's the latest annual
// plus the interim difference), and the ADS ratio applied to its per-share and market-cap figures.

import { adsRatioOf } from './ads.js';
import type { FilerBasis, Security } from './model.js';
import type { TtmView } from './ttm.js';

export interface FilerNote {
  /** `20-F` or `40-F`. */
  annualForm: string;
  /** ISO 4217 code of the currency of its statements. */
  reportingCurrency: string;
  /**
   * The rates its TTM's latest filing was converted at: USD per unit of `reportingCurrency` of its
   * flows and of its balances (the same rate for a convenience translation), which rate each is,
   * the filing's disclosure date and where the rates come from. Null when it reports in USD or has no TTM.
   */
  conversion: {
    usdPerUnit: number;
    balanceUsdPerUnit: number;
    flowRate: string;
    balanceRate: string;
    disclosedOn: string;
    source: string;
  } | null;
  /** What the TTM is made of, in words; the reason when there is none. */
  ttmBasis: string;
  /** Ordinary shares one ADS represents, and where that is stated; null when it trades its ordinary shares. */
  ads: { ordinaryPerAds: number; source: string } | null;
}

const PERIOD_NAMES = { 1: 'Q1', 2: 'H1', 3: '9M' } as const;

/** The rate in force for figures disclosed on `disclosedOn`: the filing's own, else the latest before it. */
function rateOf(basis: FilerBasis, disclosedOn: string): FilerBasis['usdRates'][number] | null {
  let found: FilerBasis['usdRates'][number] | null = null;
  for (const r of basis.usdRates) if (r.disclosedOn <= disclosedOn && (!found || r.disclosedOn >= found.disclosedOn)) found = r;
  return found;
}

/** What the note says of one filing's rates. */
function conversionOf(rate: FilerBasis['usdRates'][number], currency: string): NonNullable<FilerNote['conversion']> {
  const ref = rate.reference;
  if (!ref) {
    return {
      usdPerUnit: rate.usdPerUnit,
      balanceUsdPerUnit: rate.usdPerUnit,
      flowRate: "the filer's USD convenience translation",
      balanceRate: "the filer's USD convenience translation",
      disclosedOn: rate.disclosedOn,
      source: `the filer's own USD convenience translation in its filing of ${rate.disclosedOn} (its USD figure over its ${currency} figure for the same item); the year before it in the same filing at the same rate, so growth is in ${currency}`,
    };
  }
  const cross = currency === 'EUR' ? 'USD per EUR' : `USD per EUR / ${currency} per EUR`;
  return {
    usdPerUnit: rate.usdPerUnit,
    balanceUsdPerUnit: ref.balanceUsdPerUnit,
    flowRate: `ECB reference rate, average of the period ${ref.from} to ${ref.to} (${ref.days} days published)`,
    balanceRate: `ECB reference rate at period end (${ref.balanceOn}${ref.balanceOn === ref.to ? '' : `, the last published on or before ${ref.to}`})`,
    disclosedOn: rate.disclosedOn,
    source: `ECB euro foreign exchange reference rates (www.ecb.europa.eu, eurofxref), ${cross} of each day: flows (income, cash flow, per share) at the average of the period's daily rates, balances at the rate of the period end; the year before it in the filing of ${rate.disclosedOn} at the same rates, so growth is in ${currency}`,
  };
}

/** The note of a security with a filer basis (null for every other), as of the TTM view taken of its filings. */
export function filerNoteOf(security: Pick<Security, 'code' | 'currency' | 'filerBasis'>, view: TtmView): FilerNote | null {
  const basis = security.filerBasis;
  if (!basis) return null;
  const ttm = view.current.ttm;
  let ttmBasis: string;
  if (!ttm && basis.reportingCurrency !== security.currency && basis.usdRates.length === 0) {
    // Its filings were not taken: none gives a USD figure to convert its own currency's at.
    ttmBasis = `no TTM: its filings give no USD convenience translation of their ${basis.reportingCurrency} figures, and no ECB reference rate of ${basis.reportingCurrency} covered their periods when they were read (the ECB publishes no rate of some currencies, TWD among them)`;
  } else if (!ttm) ttmBasis = `no TTM: ${view.current.reason ?? ''}`;
  else if (ttm.end.fiscalQuarter === 4) {
    const interims = view.quarters.some((q) => q.fiscalQuarter !== 4);
    ttmBasis = `fiscal year ${ttm.end.fiscalYear} as filed on ${basis.annualForm}${interims ? '' : ' (no interim flow figures among its XBRL facts: the latest fiscal year)'}`;
  } else {
    const period = PERIOD_NAMES[ttm.end.fiscalQuarter];
    ttmBasis = `fiscal year ${ttm.end.fiscalYear - 1} (${basis.annualForm}) + ${ttm.end.fiscalYear} ${period} - ${ttm.end.fiscalYear - 1} ${period} (interim figures as filed)`;
  }
  const rate = ttm && basis.reportingCurrency !== security.currency ? rateOf(basis, ttm.disclosedOn) : null;
  const ads = adsRatioOf(security.code);
  return {
    annualForm: basis.annualForm,
    reportingCurrency: basis.reportingCurrency,
    conversion: rate ? conversionOf(rate, basis.reportingCurrency) : null,
    ttmBasis,
    ads: ads ? { ordinaryPerAds: ads.ordinaryPerAds, source: ads.source } : null,
  };
}
