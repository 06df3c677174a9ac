import { z } from 'zod';
import { seoulIso } from '../kernel/clock.js';
import { termsLine } from '../domain/source-terms.js';
import { COVERAGE_TOOLS, NULL_REASONS, type NullReason } from '../serving/coverage.js';
import { progressEntry, sourceProgress } from './progress.js';
import { defineTool } from './tool.js';


const nullCounts = z.object(Object.fromEntries(NULL_REASONS.map((r) => [r, z.number().int()])) as Record<NullReason, z.ZodNumber>);
const market = z.enum(['KR', 'US']);

/** The coverage report (src/serving/coverage.ts) as health shows it. */
export const coverageReport = z
  .object({
    asOf: z.string(),
    markets: z.array(
      z.object({
        market,
        listed: z.number().int().describe('Securities the store lists'),
        priced: z.number().int().describe('Served with a price'),
        scored: z.number().int().describe('With a V3 score (rankings rows)'),
        complete: z.number().describe('scored / listed, 0..1'),
      }),
    ),
    tools: z.array(
      z.object({
        tool: z.enum(COVERAGE_TOOLS),
        market,
        listed: z.number().int(),
        withValues: z.number().int().describe('Stocks the tool answers with values'),
        nulls: nullCounts.describe('The other stocks by why their values are null: noPrice, noFilingsYet, filingsIncomplete, notCovered (the filings do not carry the item), undefinedForCompany (e.g. a loss for PER), notApplicable (the metric does not exist for the kind of company, e.g. a bank\'s current ratio), noFlows, noFxRate, other'),
        complete: z.number().describe('withValues / listed, 0..1'),
      }),
    ),
    metrics: z
      .array(
        z.object({
          metric: z.string(),
          market,
          percentile: z.boolean().describe('One of the 17 percentile metrics (screenable, ranked in cohorts); false for a snapshot-only metric'),
          listed: z.number().int().describe('Securities the store lists'),
          applicable: z.number().int().describe('Those the metric applies to: listed less the notApplicable and undefinedForCompany nulls (it does not exist for the kind of company, or is undefined on its complete figures, e.g. PER of a loss)'),
          withValues: z.number().int().describe('Stocks with a value'),
          complete: z.number().describe('withValues / applicable, 0..1'),
          nulls: nullCounts.describe('The other listed stocks by why the value is null'),
        }),
      )
      .describe('Each metric per market: the 17 percentile metrics, then the snapshot-only ones'),
  })
  .describe('Per market and tool, how many listed stocks answer with values and why the rest are null');

const output = z.object({
  valid: z.boolean().describe('Whether the key is valid'),
  plan: z.enum(['free', 'paid']).nullable(),
  keyPrefix: z.string().nullable().describe('The readable start of the key, never the secret part'),
  callsToday: z.number().int().describe('Calls counted today (Asia/Seoul calendar day), this one included'),
  dailyQuota: z.number().int().nullable(),
  resetsAt: z.string().describe('Next reset of the daily count: midnight Asia/Seoul, ISO 8601'),
  reason: z.string().optional().describe('Why the key is not valid'),
  dataUpdatedAt: z.string(),
  dataAsOf: z.string(),
  source: z.string(),
  nextRefreshAt: z.string().nullable().describe('When the next scheduled refresh is due (ISO 8601, +09:00); null when no refresh is scheduled'),
  sources: z
    .array(
      z.object({
        source: z.string(),
        ok: z.boolean(),
        at: z.string(),
        error: z.string().optional(),
        records: z.number().int().optional(),
        terms: z.string().describe('The licence or terms the source is used under, in one line (docs/sources.md, "Terms of each source")'),
      }),
    )
    .describe('The last refresh per upstream source; a failed one keeps the previous data served'),
  progress: z.array(sourceProgress).describe('What each source is doing now (empty for the demo universe)'),
  coverage: coverageReport,
  asOf: z
    .object({
      earliest: z.string().nullable().describe('The earliest asOf the stock tools take: the first day the store holds both prices and a TTM; null while it holds none'),
    })
    .describe('Answers as of a past day (the asOf argument of the stock tools)'),
});

export const health = defineTool({
  name: 'health',
  title: 'Key and usage',
  description:
    'Whether the API key is valid, its plan (free or paid), calls made today, the daily quota and when it resets; ' +
    'the served data\'s state: each source\'s last refresh and progress, and how many listed stocks each tool answers with values.',
  input: z.strictObject({}),
  output,
  path: '/health',
  cacheable: false,
  async handler(_args, { data, account, progress }) {
    return {
      valid: account.valid,
      plan: account.plan,
      keyPrefix: account.keyPrefix,
      callsToday: account.callsToday,
      dailyQuota: account.dailyQuota,
      resetsAt: account.resetsAt,
      ...(account.reason === undefined ? {} : { reason: account.reason }),
      dataUpdatedAt: data.updatedAt,
      dataAsOf: data.asOf,
      source: data.source,
      nextRefreshAt: data.nextRefreshAt === null ? null : seoulIso(data.nextRefreshAt),
      sources: data.sources.map((s) => ({ ...s, terms: termsLine(s.source) })),
      progress: (progress?.() ?? []).map(progressEntry),
      coverage: data.coverage(),
      asOf: { earliest: await data.past.earliest() },
    };
  },
});
