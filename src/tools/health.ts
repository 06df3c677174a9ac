import { z } from 'zod';
import { defineTool } from './tool.js';

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
  sources: z
    .array(z.object({ source: z.string(), ok: z.boolean(), at: z.string(), error: z.string().optional(), records: z.number().int().optional() }))
    .describe('The last refresh per upstream source; a failed one keeps the previous data served'),
});

export const health = defineTool({
  name: 'health',
  title: 'Key and usage',
  description: 'Whether the API key is valid, its plan (free or paid), calls made today, the daily quota and when it resets.',
  input: z.strictObject({}),
  output,
  path: '/health',
  cacheable: false,
  async handler(_args, { data, account }) {
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
      sources: [...data.sources],
    };
  },
});
