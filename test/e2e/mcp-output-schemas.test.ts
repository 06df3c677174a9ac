// Every tool's `structuredContent` against the output schema it declares, in every argument
// form, through the official client of each protocol era against the real service on a loopback
// port (demo universe, fixed clock). The forms are derived from each tool's declared input
// schema as tools/list shows it, not listed by hand, so a tool or an argument added to the
// registry is covered: each value of every enum and boolean argument alone, all of them crossed
// with every integer argument at its maximum (the largest answers: the MCP size budget cuts the
// longest series), every integer argument at its minimum, an offset past the end (an empty
// page), each per-stock tool with a KR and a US code; for screen_stocks also every field.
//
// Each answer is validated three ways: by the client's own check (both SDK clients validate
// `structuredContent` against the tool's outputSchema in callTool and throw on a mismatch), by
// the validator that client uses for it (`AjvJsonSchemaValidator` of the SDK v2 client package or
// of the v1 SDK), and by ajv's 2020-12 dialect in strict mode, which refuses a schema with an
// unknown keyword or format as well as a value that does not match. A series answer is also cut
// by the budget's own code (`mcpToolResult`) to a few rows, so the truncated form of every tool
// with a series is validated even where the demo's answers fit the budget whole.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AjvJsonSchemaValidator as V2Validator } from '@modelcontextprotocol/client/validators/ajv';
import { AjvJsonSchemaValidator as V1Validator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SCREEN_FIELD_DEFINITIONS } from '../../src/domain/screen.js';
import { mcpToolResult } from '../../src/tools/budget.js';
import { TOOLS } from '../../src/tools/registry.js';
import { sdkV1, sdkV2, type Json, type McpClientDriver } from '../support/mcp-clients.js';
import { startTestServer, type TestServer } from '../support/server.js';

// ajv-formats is CommonJS: its default export is the function (under `default` when imported from ESM).
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
}

/** Larger than any list the demo serves, below which an integer's maximum is its largest answer; above it (offset), it is a page past the end. */
const PAST_THE_END = 100_000;

/** The argument forms of a tool, from its declared input schema (module comment). */
function argumentForms(name: string, schema: JsonSchema, codes: { kr: string; us: string }): Json[] {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const choices: [string, unknown[]][] = [];
  const integers: [string, JsonSchema][] = [];
  for (const [prop, s] of Object.entries(props)) {
    if (s.enum !== undefined && s.type !== 'array') choices.push([prop, s.enum]);
    else if (s.type === 'boolean') choices.push([prop, [true, false]]);
    else if (s.type === 'integer') integers.push([prop, s]);
  }
  // What a required argument is given: each demo code, or a search text.
  const bases: Json[] = [{}];
  for (const prop of required) {
    const values = prop === 'code' ? [codes.kr, codes.us] : prop === 'q' ? ['a', '성산', 'ㅅㅅ'] : null;
    assert.ok(values, `${name}: no demo value for the required argument ${prop}`);
    bases.splice(0, bases.length, ...bases.flatMap((b) => values.map((v) => ({ ...b, [prop]: v }))));
  }
  const largest = Object.fromEntries(integers.map(([prop, s]) => [prop, Math.min(s.maximum ?? PAST_THE_END, PAST_THE_END)]));
  const largestFirst = Object.fromEntries(integers.filter(([prop]) => prop !== 'offset').map(([prop, s]) => [prop, Math.min(s.maximum ?? PAST_THE_END, PAST_THE_END)]));
  let crossed: Json[] = [largestFirst];
  for (const [prop, values] of choices) crossed = crossed.flatMap((c) => values.map((v) => ({ ...c, [prop]: v })));
  const variants: Json[] = [
    {},
    ...choices.flatMap(([prop, values]) => values.map((v) => ({ [prop]: v }))),
    ...crossed,
    ...integers.map(([prop, s]) => ({ [prop]: s.minimum ?? 0 })),
    ...(integers.some(([prop]) => prop === 'offset') ? [largest] : []),
  ];
  // screen_stocks: every field it can show (grade's text values and every number) in both forms.
  if (props.fields?.type === 'array') {
    const every = SCREEN_FIELD_DEFINITIONS.map((d) => d.field);
    variants.push(...['rows', 'columns'].map((format) => ({ fields: every, format, limit: largestFirst.limit ?? 50 })));
  }
  return bases.flatMap((b) => variants.map((v) => ({ ...b, ...v })));
}

/** One checker per validator; each answers null when `value` matches `schema`, else the messages. */
type Check = (schema: Json, value: unknown) => string | null;

function sdkCheck(validator: { getValidator(schema: never): (input: unknown) => { valid: boolean; errorMessage?: string | undefined } }): Check {
  return (schema, value) => {
    const result = validator.getValidator(schema as never)(value);
    return result.valid ? null : (result.errorMessage ?? 'invalid');
  };
}

/**
 * ajv's 2020-12 dialect, strict: an unknown keyword or format in a schema is an error too. A
 * union type (`type: [string, number, null]`, a compact row's cell) is standard JSON Schema,
 * which ajv's strict mode asks to allow by name.
 */
function ajv2020Check(): Check {
  const ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }));
  const compiled = new Map<Json, ReturnType<Ajv2020['compile']>>();
  return (schema, value) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema });
      compiled.set(schema, validate);
    }
    return validate(value) ? null : ajv.errorsText(validate.errors);
  };
}

interface Tally {
  calls: number;
  structured: number;
  truncatedByServer: string[];
  columns: number;
  rows: number;
}

/** Calls every tool in every form through `client`, validating each structured answer with `checks`. */
async function validateAll(client: McpClientDriver, checks: Record<string, Check>, codes: { kr: string; us: string }): Promise<Tally> {
  const listed = (await client.listTools()).tools as { name: string; inputSchema: JsonSchema; outputSchema: Json }[];
  assert.deepEqual(
    listed.map((t) => t.name),
    TOOLS.map((t) => t.name),
  );
  const tally: Tally = { calls: 0, structured: 0, truncatedByServer: [], columns: 0, rows: 0 };
  const failures: string[] = [];
  const check = (label: string, schema: Json, value: unknown) => {
    for (const [by, fn] of Object.entries(checks)) {
      const error = fn(schema, value);
      if (error !== null) failures.push(`${label} (${by}): ${error}`);
    }
  };
  for (const listedTool of listed) {
    const tool = TOOLS.find((t) => t.name === listedTool.name)!;
    for (const args of argumentForms(tool.name, listedTool.inputSchema, codes)) {
      const label = `${client.label}: ${tool.name} ${JSON.stringify(args)}`;
      // The client checks structuredContent against the outputSchema itself and throws on a mismatch.
      const result = await client.callTool(tool.name, args);
      tally.calls++;
      if (result.isError === true) {
        // A well-formed form never fails, but for a demo gap (e.g. no PER band for a stock without earnings).
        const text = JSON.stringify(result.content);
        assert.match(text, /not_found|no_data|data_unavailable/, label);
        continue;
      }
      const structured = result.structuredContent as Json | undefined;
      assert.ok(structured, `${label}: structuredContent`);
      tally.structured++;
      if (structured.truncated === true) tally.truncatedByServer.push(tool.name);
      if (args.format === 'columns') tally.columns++;
      if (args.format === 'rows') tally.rows++;
      check(label, listedTool.outputSchema, structured);
      // The truncated form: the budget's own cut, to a few rows of each series.
      if (tool.series !== undefined && structured.truncated !== true) {
        const whole = JSON.stringify(structured);
        const cut = JSON.parse(mcpToolResult(tool, whole, Math.floor(whole.length * 1.6))) as { structuredContent: Json };
        if (cut.structuredContent.truncated === true) check(`${label} cut`, listedTool.outputSchema, cut.structuredContent);
      }
    }
  }
  assert.deepEqual(failures, []);
  return tally;
}

describe('MCP: every structuredContent matches its tool\'s declared output schema, in every argument form, in both protocol eras', () => {
  let t: TestServer;
  let endpoint: string;
  let codes: { kr: string; us: string };
  const tallies: Record<string, Tally> = {};

  before(async () => {
    t = await startTestServer();
    endpoint = `${t.url}/api/mcp`;
    const search = await sdkV1(endpoint, await t.newKey('paid'), '2025-11-25');
    try {
      const first = async (market: string) => ((await search.callTool('search_stocks', { q: 'a', market, limit: 1 })).structuredContent as { matches: { code: string }[] }).matches[0]!.code;
      codes = { kr: await first('KR'), us: await first('US') };
    } finally {
      await search.close();
    }
  });
  after(() => t.close());

  it('SDK v1 client, 2025-11-25: its validator and ajv 2020-12', async () => {
    const client = await sdkV1(endpoint, await t.newKey('paid'), '2025-11-25');
    try {
      tallies.v1 = await validateAll(client, { 'SDK v1 AjvJsonSchemaValidator': sdkCheck(new V1Validator()), 'ajv 2020-12 strict': ajv2020Check() }, codes);
    } finally {
      await client.close();
    }
  });

  for (const version of ['2026-07-28', '2025-06-18'] as const) {
    it(`SDK v2 client, ${version}: its validator and ajv 2020-12`, async () => {
      const client = await sdkV2(endpoint, await t.newKey('paid'), version);
      assert.equal(client.negotiated.version, version);
      try {
        tallies[version] = await validateAll(client, { 'SDK v2 AjvJsonSchemaValidator': sdkCheck(new V2Validator()), 'ajv 2020-12 strict': ajv2020Check() }, codes);
      } finally {
        await client.close();
      }
    });
  }

  it('the forms reached every kind of answer: columns, rows, and a series the server itself cut to the budget', () => {
    for (const [era, tally] of Object.entries(tallies)) {
      assert.ok(tally.structured > 100, `${era}: ${tally.structured} structured answers of ${tally.calls} calls`);
      assert.ok(tally.columns > 10 && tally.rows > 10, `${era}: ${tally.columns} columns, ${tally.rows} rows`);
      assert.ok(tally.truncatedByServer.includes('get_price_history'), `${era}: truncated by the server: ${tally.truncatedByServer.join(', ')}`);
    }
    assert.deepEqual(Object.keys(tallies).sort(), ['2025-06-18', '2026-07-28', 'v1']);
  });
});
