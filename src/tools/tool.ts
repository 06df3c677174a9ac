// What a tool is: a name, a description, an input schema, an output schema and a handler,
// declared once (as the MCP SDK's registerTool does). The REST and MCP doors and the
// OpenAPI document are generated from these declarations.

import type { z } from 'zod';
import type { ServedDataset } from '../serving/dataset.js';
import type { ProgressEntry } from './progress.js';
import type { ObjectSchema } from './params.js';

/** What the door knows about the caller's key; health reports it. */
export interface Account {
  valid: boolean;
  plan: 'free' | 'paid' | null;
  keyPrefix: string | null;
  callsToday: number;
  dailyQuota: number | null;
  resetsAt: string;
  reason?: string;
}

export interface ToolContext {
  data: ServedDataset;
  account: Account;
  /** What each source is doing now (the refresh's progress board); health shows it. */
  progress?: () => readonly ProgressEntry[];
}

/** Where a tool's long series is: top-level arrays (`bars`, `rows`) or one per item of a list (`sectors[].series`); an MCP answer over the size budget is cut there (./budget.ts). */
export interface SeriesSpec {
  /** The field holding the series: an array of rows or the compact `{columns, rows}`. */
  field: string;
  /** When the series are inside each element of this top-level array. */
  within?: string;
  /** The row field that names a row (date or month), for the hint. */
  key: string;
  /** The parameter that bounds the window's end, for the hint (`to`); with `keep: 'first'`, the paging parameter (`offset`). */
  endParam: string;
  /**
   * Which rows a cut keeps: the latest (a time series, the default: the oldest are dropped) or
   * the first (a sorted list, whose best rows come first: the last are dropped, and the hint
   * says to page on).
   */
  keep?: 'latest' | 'first';
}

export interface ToolDefinition<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> {
  name: string;
  title: string;
  description: string;
  input: I;
  /**
   * REST's own input schema where REST's limits or defaults differ: the rankings limit (REST 1..200),
   * and long series' `format` (REST object rows, MCP the compact form). `input` is MCP's.
   */
  restInput?: ObjectSchema;
  output: O;
  /** REST path under /api/public/v2; `{code}` is a path segment. */
  path: string;
  /** Market-data results are cacheable per dataset version; account results are not. */
  cacheable: boolean;
  /** Example REST calls (query parameters as sent), shown in the OpenAPI document. */
  examples?: readonly { summary: string; query: Readonly<Record<string, string>> }[];
  /** The tool's long series, which an MCP answer over the size budget is cut to (src/tools/budget.ts). */
  series?: SeriesSpec;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
}

/** Keeps each tool's own types while the registry holds them side by side. */
export function defineTool<I extends ObjectSchema, O extends ObjectSchema>(tool: ToolDefinition<I, O>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
