// The size budget of an answer over MCP: every tools/call result fits in 25,000
// tokens, counted as characters / 4, because assistants cut or refuse larger tool output. The
// result carries the JSON twice (structuredContent, and a text block with it escaped), so a
// long series that would not fit is cut to its LATEST rows that do, and says so: `truncated`
// and how to ask for the rest. It never fails for size.

import type { ToolDefinition } from './tool.js';

/** 25,000 tokens at 4 characters a token, less room for the JSON-RPC envelope around the result (its id is at most 200 characters). */
export const MCP_BUDGET_CHARS = 99_700;

type Json = Record<string, unknown>;
type Series = unknown[] | { columns: string[]; rows: unknown[][] };

const lengthOf = (s: Series): number => (Array.isArray(s) ? s.length : s.rows.length);
const dropOldest = (s: Series, n: number): Series => (Array.isArray(s) ? s.slice(n) : { columns: s.columns, rows: s.rows.slice(n) });
const dropLast = (s: Series, n: number): Series => {
  const keep = lengthOf(s) - n;
  return Array.isArray(s) ? s.slice(0, keep) : { columns: s.columns, rows: s.rows.slice(0, keep) };
};
function firstKey(s: Series, key: string): unknown {
  if (Array.isArray(s)) return (s[0] as Json | undefined)?.[key];
  const i = s.columns.indexOf(key);
  return i < 0 ? undefined : s.rows[0]?.[i];
}

/** The characters of the tools/call result made of `body` (JSON text): the text block escapes it. */
export function mcpResultText(body: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(body)}}],"structuredContent":${body}}`;
}

/**
 * The tools/call result of a tool's answer `body`, within `budget` characters: the answer as
 * it is when it fits; else its series cut to the latest rows that fit (oldest dropped first,
 * the same number from each series of a list), with `truncated: true` and `truncation` saying
 * how many rows were returned of how many and which parameter asks for the older ones.
 */
export function mcpToolResult(tool: Pick<ToolDefinition, 'series'>, body: string, budget = MCP_BUDGET_CHARS): string {
  const whole = mcpResultText(body);
  if (whole.length <= budget || tool.series === undefined) return whole;
  const spec = tool.series;
  const answer = JSON.parse(body) as Json;
  const holders: Json[] = spec.within === undefined ? [answer] : ((answer[spec.within] as Json[] | undefined) ?? []);
  const available = Math.max(0, ...holders.map((h) => lengthOf(h[spec.field] as Series)));
  const build = (keep: number): string => {
    const cut = { ...answer } as Json;
    let first: unknown;
    const cutHolders = holders.map((h) => {
      const series = h[spec.field] as Series;
      const trimmed = (spec.keep === 'first' ? dropLast : dropOldest)(series, Math.max(0, lengthOf(series) - keep));
      const f = firstKey(trimmed, spec.key);
      if (f !== undefined && (first === undefined || String(f) < String(first))) first = f;
      return { ...h, [spec.field]: trimmed };
    });
    if (spec.within === undefined) Object.assign(cut, cutHolders[0]);
    else cut[spec.within] = cutHolders;
    if ('count' in cut && spec.within === undefined) cut['count'] = Math.min(keep, available);
    cut['truncated'] = true;
    cut['truncation'] = {
      returned: Math.min(keep, available),
      available,
      reason: `the whole answer would exceed the ${budget / 4} token budget of an MCP tool result`,
      rest:
        spec.keep === 'first'
          ? `the rows after the first ${Math.min(keep, available)}: call again with ${spec.endParam} increased by ${Math.min(keep, available)} (or fewer fields)`
          : `rows before ${String(first)}: call again with ${spec.endParam} set before ${String(first)} (or a smaller window)`,
    };
    return JSON.stringify(cut);
  };
  // The largest number of latest rows whose result fits: binary search on the row count.
  let lo = 0;
  let hi = available;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (mcpResultText(build(mid)).length <= budget) lo = mid;
    else hi = mid - 1;
  }
  return mcpResultText(build(lo));
}
