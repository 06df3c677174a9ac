// Shared parameter schemas and the one place arguments are validated. Limits and defaults
// live in the zod schemas; error messages name the parameter and read the allowed values
// back from the schema's own JSON Schema, so nothing is written twice.

import { z } from 'zod';
import { EARLIEST_TRADE_MONTH } from '../domain/trade.js';
import { ApiError } from '../kernel/errors.js';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

export { EARLIEST_TRADE_MONTH };

export const codeParam = z
  .string()
  .regex(/^(\d{6}|[A-Za-z][A-Za-z0-9]{0,5}([.-][A-Za-z0-9]{1,3})?)$/, {
    error: 'must be a 6-digit KR code or a US ticker',
  })
  .describe('6-digit KR code or US ticker; case-insensitive, `.` and `-` equivalent (CORI.B = cori-b)');

export const monthParam = (what: string) =>
  z
    .string()
    .regex(MONTH, { error: 'must be a month YYYY-MM' })
    .refine((m) => m >= EARLIEST_TRADE_MONTH, { error: `the first month with data is ${EARLIEST_TRADE_MONTH}` })
    .describe(`${what} month, YYYY-MM, ${EARLIEST_TRADE_MONTH} or later`);

export const dateParam = (what: string) =>
  z
    .string()
    .regex(DATE, { error: 'must be a date YYYY-MM-DD' })
    .refine(isCalendarDate, { error: 'is not a calendar date' })
    .describe(`${what} date, YYYY-MM-DD`);

/** A JSON Schema fragment (as produced by zod) describing one property. */
type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
  pattern?: string;
  anyOf?: JsonSchema[];
};

/** Allowed values of a parameter in words, read from its schema. */
export function allowedValues(schema: JsonSchema | undefined): string {
  if (schema === undefined) return 'see the tool description';
  const parts: string[] = [];
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  else if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'an integer' : 'a number';
    if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${kind} from ${schema.minimum} to ${schema.maximum}`);
    else if (schema.minimum !== undefined) parts.push(`${kind} >= ${schema.minimum}`);
    else parts.push(kind);
  } else if (schema.type === 'boolean') parts.push('true or false');
  else if (schema.description) parts.push(schema.description);
  else if (schema.type) parts.push(`a ${String(schema.type)}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join('; ');
}

export type ObjectSchema = z.ZodObject<z.ZodRawShape>;

const propertiesCache = new WeakMap<ObjectSchema, Record<string, JsonSchema>>();
export function inputProperties(schema: ObjectSchema): Record<string, JsonSchema> {
  let props = propertiesCache.get(schema);
  if (props === undefined) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonSchema> };
    props = json.properties ?? {};
    propertiesCache.set(schema, props);
  }
  return props;
}

function describeValue(v: unknown): string {
  const text = typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Validates arguments against a tool's input schema. On failure throws
 * `invalid_parameter` whose detail names the first bad parameter, what was given and what
 * is allowed.
 */
export function parseArgs<S extends ObjectSchema>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const props = inputProperties(schema);
  const issue = result.error.issues[0];
  if (issue === undefined) throw new ApiError('invalid_parameter', 'invalid arguments');
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? '?';
    const known = Object.keys(props);
    throw new ApiError(
      'invalid_parameter',
      `unknown parameter '${name.slice(0, 40)}'; allowed parameters: ${known.length ? known.join(', ') : 'none'}`,
      { parameter: name.slice(0, 40) },
    );
  }
  if (issue.path.length === 0) throw new ApiError('invalid_parameter', `arguments must be an object of named parameters`);
  const name = String(issue.path[0]);
  const given = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)[name] : undefined;
  const problem =
    issue.code === 'invalid_type'
      ? 'has the wrong type'
      : issue.code === 'too_big' || issue.code === 'too_small'
        ? 'is out of range'
        : issue.code === 'invalid_value'
          ? 'is not an allowed value'
          : issue.message;
  const what = given === undefined ? 'is required' : `${describeValue(given)} ${problem}`;
  throw new ApiError('invalid_parameter', `parameter '${name}' ${what}; allowed: ${allowedValues(props[name])}`, { parameter: name });
}

/**
 * REST query strings are text: turn the values of integer parameters that are written as
 * plain decimal integers into numbers and the values `true` and `false` of boolean parameters
 * into booleans, leave everything else for the schema to judge.
 */
export function coerceQuery(schema: ObjectSchema, query: Record<string, unknown>): Record<string, unknown> {
  const props = inputProperties(schema);
  // No prototype: on a plain object, `out['__proto__'] = 'x'` would set the prototype (or do
  // nothing) instead of keeping a parameter named `__proto__`, which the schema then refuses
  // like any other unknown name. Spread into the arguments, it stays an own property.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    const type = props[name]?.type;
    if ((type === 'integer' || type === 'number') && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) out[name] = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}
