import { z } from 'zod';
import { stockAnswer } from './answer.js';
import { codeParam } from './params.js';
import { meta, snapshotMetric, stockIdentity } from './shapes.js';
import { defineTool } from './tool.js';
import { asOfField, asOfParam, withAsOf } from './as-of.js';

const m = snapshotMetric;
const output = z.object({
  ...stockIdentity,
  price: z.object({ date: z.string(), close: z.number(), marketCap: z.number() }).nullable(),
  valuation: z.object({ per: m, pbr: m, evEbit: m }),
  profitability: z.object({ roe: m, roic: m, operatingMargin: m }),
  growth: z.object({ revenueYoy: m, epsYoy: m }),
  stability: z.object({ netDebtRatio: m, interestCoverage: m, currentRatio: m }),
  cashGeneration: z.object({ operatingCashFlow: m, fcfYield: m }),
  earningsQuality: z.object({ cfToNi: m, ccc: m }),
  perShare: z
    .object({ eps: m, dividendPerShare: m, dividendPerShareFy: m, dividendYield: m })
    .describe('TTM EPS (basis says how), dividend per share declared over the TTM and in the last fiscal year (stock currency per share), dividend yield (TTM dividend per share / last close, %)'),
  filer: z
    .object({
      annualForm: z.string().describe('20-F or 40-F: a foreign private issuer'),
      reportingCurrency: z.string().describe('ISO 4217 code of the currency its statements are in'),
      conversion: z
        .object({
          usdPerUnit: z.number().describe('USD per unit of the reporting currency the TTM flows (income, cash flow, per share) were converted at'),
          balanceUsdPerUnit: z.number().describe('USD per unit the balances were converted at (the same rate for a convenience translation)'),
          flowRate: z.string().describe("Which rate the flows are at: the filer's USD convenience translation, or the ECB reference rate averaged over the period"),
          balanceRate: z.string().describe('Which rate the balances are at: the convenience translation, or the ECB reference rate at period end'),
          disclosedOn: z.string().describe('Disclosure date of the filing whose rates they are'),
          source: z.string().describe('Where the rates come from'),
        })
        .nullable()
        .describe('Null when it reports in USD'),
      ttmBasis: z.string().describe('What the TTM is made of (a yearly reporter: its latest fiscal year)'),
      ads: z
        .object({ ordinaryPerAds: z.number().describe('Ordinary shares one ADS represents'), source: z.string() })
        .nullable()
        .describe('The ADS ratio applied to per-share and market-cap figures; null when it trades its ordinary shares'),
    })
    .optional()
    .describe('Foreign private issuers (20-F/40-F) only: how their figures were made'),
  ...meta,
  asOf: asOfField,
});

export const getStockSnapshot = defineTool({
  name: 'get_stock_snapshot',
  title: 'TTM financial snapshot',
  description:
    'Trailing-twelve-month snapshot of one stock as reported (point in time, no look-ahead): valuation (PER, PBR, EV/EBIT), ' +
    'profitability (ROE, ROIC, operating margin), growth (revenue and EPS YoY), stability (net-debt ratio, interest coverage, ' +
    'current ratio), cash generation (operating cash flow, FCF yield), earnings quality (CF/NI, CCC) and per-share figures ' +
    '(TTM EPS, dividend per share TTM and last fiscal year, dividend yield). Each value has its ' +
    'unit, reference quarter, disclosure date and price date; undefined values are null with a reason. Raw material, no verdict.',
  input: z.strictObject({ code: codeParam, asOf: asOfParam }),
  output,
  path: '/stocks/{code}/snapshot',
  cacheable: true,
  async handler(args, { data }) {
    // As of a day: that stock's figures alone (the snapshot uses no cohort).
    const past = args.asOf === undefined ? null : await data.past.stock(args.code, args.asOf);
    const view = past?.view ?? data.stock(args.code);
    const { price } = view;
    const answer = stockAnswer(view.security, data, {
      price: price ? { date: price.date, close: price.close, marketCap: price.marketCap } : null,
      ...view.snapshot,
      ...(view.filer ? { filer: view.filer } : {}),
    });
    return withAsOf(answer, past?.asOf);
  },
});
