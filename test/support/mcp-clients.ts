// The official MCP clients of both protocol eras behind one small interface, so that one suite of
// calls can run through each and their answers be compared: the SDK v1 client (2025 revisions,
// initialize), the SDK v2 client (its legacy initialize mode, or pinned to 2026-07-28: stateless,
// server/discover) and the MCP Inspector CLI (a child process per call). Every HTTP request the
// SDK clients send is recorded with its protocol headers, so a test can show which revision was
// spoken on the wire, not only which one the client says it negotiated.

import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type Json = Record<string, unknown>;

/** The calls the shared suite makes; each answers the JSON-RPC `result` object as the client returned it. */
export interface McpClientDriver {
  /** Which client and revision, for test names and messages. */
  readonly label: string;
  listTools(): Promise<Json>;
  callTool(name: string, args: Json): Promise<Json>;
  listResources(): Promise<Json>;
  readResource(uri: string): Promise<Json>;
  listResourceTemplates(): Promise<Json>;
  listPrompts(): Promise<Json>;
  getPrompt(name: string, args: Record<string, string>): Promise<Json>;
  /** completion/complete (the SDK clients; the Inspector CLI has no such method). */
  complete?(params: CompleteParams): Promise<Json>;
  close(): Promise<void>;
}

/** completion/complete's params: a prompt's or a resource template's argument, with the arguments already filled. */
export interface CompleteParams {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments: Record<string, string> };
}

/** One POST (or GET/DELETE) a client sent: the protocol headers and the JSON-RPC method of its body. */
export interface SentRequest {
  httpMethod: string;
  /** `MCP-Protocol-Version`; null when absent. */
  protocolVersion: string | null;
  /** `Mcp-Method` (2026-07-28); null when absent. */
  mcpMethod: string | null;
  /** The body's JSON-RPC `method` (null for a response, a GET, or a batch). */
  bodyMethod: string | null;
  /** The body's `params.protocolVersion` (initialize's proposal); null otherwise. */
  proposed: string | null;
}

/** What the recorder reads of a JSON-RPC body. */
interface RpcBody {
  method?: unknown;
  params?: { protocolVersion?: unknown };
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that records every request it carries into `sent` (and, with `propose`, rewrites initialize's proposed revision). */
function recordingFetch(sent: SentRequest[], propose?: string): Fetch {
  return async (url, init) => {
    const headers = new Headers(init?.headers);
    let body = init?.body;
    let message: RpcBody | null = null;
    if (typeof body === 'string') {
      const parsed: unknown = JSON.parse(body);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) message = parsed as RpcBody;
      // The SDK v1 client always proposes its newest revision (LATEST_PROTOCOL_VERSION, 2025-11-25) and
      // has no option for another; a client of the older revision sends the same initialize with its
      // own version, which the server then answers with and the client adopts (it is in the v1
      // client's SUPPORTED_PROTOCOL_VERSIONS), so its later requests carry it in the header.
      if (propose !== undefined && message?.method === 'initialize' && message.params) {
        message = { ...message, params: { ...message.params, protocolVersion: propose } };
        body = JSON.stringify(message);
      }
    }
    sent.push({
      httpMethod: init?.method ?? 'GET',
      protocolVersion: headers.get('mcp-protocol-version'),
      mcpMethod: headers.get('mcp-method'),
      bodyMethod: typeof message?.method === 'string' ? message.method : null,
      proposed: typeof message?.params?.protocolVersion === 'string' ? message.params.protocolVersion : null,
    });
    return fetch(url, { ...init, ...(body === undefined ? {} : { body }) });
  };
}

/** What both SDK generations' Client classes have in common for the suite. */
interface SdkClient {
  listTools(): Promise<object>;
  callTool(params: { name: string; arguments: Json }): Promise<object>;
  listResources(): Promise<object>;
  readResource(params: { uri: string }): Promise<object>;
  listResourceTemplates(): Promise<object>;
  listPrompts(): Promise<object>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<object>;
  complete(params: CompleteParams): Promise<object>;
  close(): Promise<void>;
  getServerVersion(): object | undefined;
}

function sdkDriver(label: string, client: SdkClient): McpClientDriver {
  const json = (value: Promise<object>) => value as Promise<Json>;
  return {
    label,
    listTools: () => json(client.listTools()),
    callTool: (name, args) => json(client.callTool({ name, arguments: args })),
    listResources: () => json(client.listResources()),
    readResource: (uri) => json(client.readResource({ uri })),
    listResourceTemplates: () => json(client.listResourceTemplates()),
    listPrompts: () => json(client.listPrompts()),
    getPrompt: (name, args) => json(client.getPrompt({ name, arguments: args })),
    complete: (params) => json(client.complete(params)),
    close: () => client.close(),
  };
}

export interface RecordedDriver extends McpClientDriver {
  /** Every HTTP request the client has sent so far, in order. */
  sent: SentRequest[];
  /** The server's name, title and version as the client learnt them at connect (initialize, or server/discover). */
  serverInfo: Json | undefined;
}

/** The SDK v1 client (`@modelcontextprotocol/sdk`) with `key` as bearer, proposing `version` in initialize. */
export async function sdkV1(endpoint: string, key: string, version: '2025-11-25' | '2025-06-18'): Promise<RecordedDriver> {
  const sent: SentRequest[] = [];
  const client = new ClientV1({ name: 'mcp-eras-test', version: '1.0.0' });
  const transport = new TransportV1(new URL(endpoint), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: recordingFetch(sent, version === '2025-11-25' ? undefined : version),
  });
  await client.connect(transport);
  return { ...sdkDriver(`SDK v1, ${version}`, client), sent, serverInfo: client.getServerVersion() };
}

export type V2Version = '2026-07-28' | '2025-11-25' | '2025-06-18';

/**
 * The SDK v2 client (`@modelcontextprotocol/client`). `2026-07-28` pins the modern era
 * (`versionNegotiation: { mode: { pin } }`: server/discover, no initialize, no fallback); `auto`
 * probes with server/discover and falls back to initialize unless the server answers as a modern
 * one; a 2025 revision is its default legacy mode (initialize), proposing that revision through
 * `supportedProtocolVersions` (the first 2025 entry is the one offered).
 */
export function sdkV2Client(version: V2Version | 'auto'): ClientV2 {
  const info = { name: 'mcp-eras-test', version: '1.0.0' };
  if (version === 'auto') return new ClientV2(info, { versionNegotiation: { mode: 'auto' } });
  if (version === '2026-07-28') return new ClientV2(info, { versionNegotiation: { mode: { pin: version } } });
  return new ClientV2(info, { supportedProtocolVersions: [version] });
}

/** The SDK v2 client connected with `auth`: an API key sent as bearer, or an OAuth provider holding its tokens. */
export async function sdkV2(endpoint: string, auth: string | OAuthClientProvider, version: V2Version | 'auto'): Promise<RecordedDriver & { negotiated: { era: string | undefined; version: string | undefined } }> {
  const sent: SentRequest[] = [];
  const client = sdkV2Client(version);
  const credentials = typeof auth === 'string' ? { requestInit: { headers: { authorization: `Bearer ${auth}` } } } : { authProvider: auth };
  await client.connect(new TransportV2(new URL(endpoint), { ...credentials, fetch: recordingFetch(sent) }));
  const mode = version === 'auto' ? 'auto mode' : version === '2026-07-28' ? `pinned, ${version}` : `legacy mode, ${version}`;
  const negotiated = { era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() };
  return { ...sdkDriver(`SDK v2 ${mode}${typeof auth === 'string' ? '' : ', OAuth token'}`, client), sent, negotiated, serverInfo: client.getServerVersion() };
}

const run = promisify(execFile);

/** Where the Inspector CLI 1.x is installed: its package's `main` is the `mcp-inspector-cli` bin (build/cli.js). */
const INSPECTOR_CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli');

/**
 * The MCP Inspector CLI 1.x (`mcp-inspector-cli --cli`, the SDK v1 client inside; 2025-11-25),
 * one child process per call, its JSON output parsed. Arguments are passed as `key=<JSON>`: the
 * CLI parses each value as JSON when it can (so `code=390510` would reach the tool as a number),
 * and a JSON string literal keeps a string a string.
 */
export function inspectorCli(endpoint: string, key: string): McpClientDriver {
  const call = async (method: string, ...extra: string[]): Promise<Json> => {
    // Its build/index.js reads its own package.json through a path relative to the working
    // directory (`../package.json`), so it runs from its build folder.
    const { stdout } = await run(process.execPath, [INSPECTOR_CLI, '--cli', endpoint, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, '--method', method, ...extra], {
      cwd: dirname(INSPECTOR_CLI),
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as Json;
  };
  const pairs = (args: Record<string, unknown>) => Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return {
    label: 'MCP Inspector CLI 1.x, 2025-11-25',
    listTools: () => call('tools/list'),
    callTool: (name, args) => call('tools/call', '--tool-name', name, ...(Object.keys(args).length > 0 ? ['--tool-arg', ...pairs(args)] : [])),
    listResources: () => call('resources/list'),
    readResource: (uri) => call('resources/read', '--uri', uri),
    listResourceTemplates: () => call('resources/templates/list'),
    listPrompts: () => call('prompts/list'),
    getPrompt: (name, args) => call('prompts/get', '--prompt-name', name, ...(Object.keys(args).length > 0 ? ['--prompt-args', ...pairs(args)] : [])),
    close: async () => undefined,
  };
}
