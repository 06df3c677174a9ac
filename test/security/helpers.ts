// Shared by the security tests: a raw HTTP client (keep-alive, any path bytes), the schema
// validators built from the service's own published documents, and the checks every
// response must pass (no 5xx, documented error codes, nothing secret in a body).

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { MCP_ERRORS } from '../../src/http/mcp-errors.js';
import { ERROR_STATUS } from '../../src/kernel/errors.js';
import type { TestServer } from '../support/server.js';

export type Json = Record<string, unknown>;

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A keep-alive client that sends the path exactly as given (no URL normalisation). */
export class RawClient {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;
  sent = 0;

  constructor(baseUrl: string, maxSockets = 16) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  request(method: string, path: string, headers: Record<string, string | string[]> = {}, body?: string | Buffer): Promise<RawResponse> {
    this.sent++;
    return new Promise((resolve, reject) => {
      const req = http.request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Sends raw bytes on a fresh socket and returns everything the server wrote until it closed (or `waitMs`). */
export function rawExchange(baseUrl: string, bytes: string | Buffer, waitMs = 2_000): Promise<string> {
  const u = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', done);
    socket.on('error', done);
    socket.write(bytes);
  });
}

/** The status code of a raw HTTP/1.1 response text; 0 when there is none. */
export function rawStatus(response: string): number {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(response);
  return m ? Number(m[1]) : 0;
}

export function newAjv(): Ajv2020 {
  return new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
}

export interface OpenApiValidators {
  /** Validates a 200 body of the REST path template, e.g. `/api/public/v2/rankings`. */
  ok: Map<string, ValidateFunction>;
  problem: ValidateFunction;
}

export async function openApiValidators(t: TestServer): Promise<OpenApiValidators> {
  const res = await fetch(`${t.url}/api/public/v2/openapi.json`);
  const doc = (await res.json()) as {
    paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, { schema: Json }> }> } }>;
    components: { schemas: { Problem: Json } };
  };
  const ajv = newAjv();
  const ok = new Map<string, ValidateFunction>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const schema = item.get?.responses['200']?.content?.['application/json']?.schema;
    if (schema) ok.set(path, ajv.compile(schema));
  }
  return { ok, problem: ajv.compile(doc.components.schemas.Problem) };
}

export async function mcpOutputValidators(t: TestServer, key: string): Promise<Map<string, ValidateFunction>> {
  const res = await fetch(`${t.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const body = (await res.json()) as { result: { tools: { name: string; outputSchema: Json }[] } };
  const ajv = newAjv();
  return new Map(body.result.tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema)]));
}

export const ERROR_CODES = new Set(Object.keys(ERROR_STATUS));
export const JSON_RPC_CODES = new Set<number>([-32700, -32600, -32601, -32602, -32603, ...Object.values(MCP_ERRORS)]);

/** Nothing a caller should ever see: stack frames, SQL, driver names, file paths, keys. */
export function assertNoLeak(text: string, secrets: readonly string[], context: string): void {
  assert.doesNotMatch(text, /\n\s+at [\w.<>]+ \(|node_modules|\/work\/|SQLITE_|\bselect\b.+\bfrom\b|\binsert into\b/i, `${context}: a body leaks internals: ${text.slice(0, 300)}`);
  for (const s of secrets) assert.ok(!text.includes(s), `${context}: a body contains a key`);
}

/** A REST error response: problem+json with a documented code whose status matches. */
export function assertProblem(res: RawResponse, validate: ValidateFunction, context: string): string {
  assert.ok(res.status < 500, `${context}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, `${context}: content-type ${String(res.headers['content-type'])} (${res.status} ${res.text.slice(0, 200)})`);
  const body = JSON.parse(res.text) as { code: keyof typeof ERROR_STATUS; status: number };
  assert.ok(validate(body), `${context}: problem does not match its schema: ${JSON.stringify(validate.errors)}`);
  assert.ok(ERROR_CODES.has(body.code), `${context}: undocumented code ${body.code}`);
  assert.equal(ERROR_STATUS[body.code], res.status, `${context}: code ${body.code} with status ${res.status}`);
  assert.equal(body.status, res.status, `${context}: body status`);
  return body.code;
}

/** The demo universe's codes: KR six digits and US tickers. */
export async function universeCodes(t: TestServer): Promise<{ kr: string[]; us: string[] }> {
  const securities = await t.app.store.market.securities();
  return {
    kr: securities.filter((s) => s.market === 'KR').map((s) => s.code),
    us: securities.filter((s) => s.market === 'US').map((s) => s.code),
  };
}

/** Counts outcomes by label, for the figures a test prints. */
export class Tally {
  readonly counts = new Map<string, number>();
  add(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }
  toString(): string {
    return [...this.counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  }
}
