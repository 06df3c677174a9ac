// Test helpers for the source adapters: fixtures, a loopback HTTP server that serves
// recorded responses, a silent logger that keeps its lines, and a ZIP writer for corpCode.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';
import type { SourceContext, SourceLogger } from '../../src/sources/source.js';

const FIXTURES = new URL('../fixtures/sources/', import.meta.url);

export const fixture = (path: string): string => readFileSync(new URL(path, FIXTURES), 'utf8');
export const fixtureJson = (path: string): unknown => JSON.parse(fixture(path)) as unknown;

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Never answer (for timeout tests). */
  hang?: boolean;
  /** Send the headers and only this many bytes of the body, then drop the connection (a truncated download). */
  cut?: number;
}

export interface Recorded {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Loopback {
  base: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function loopback(route: (req: Recorded) => Reply): Promise<Loopback> {
  const requests: Recorded[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      const reply = route(rec);
      if (reply.hang) {
        hanging.push(res);
        return;
      }
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      if (reply.cut !== undefined) {
        res.write(Buffer.from(reply.body ?? '').subarray(0, reply.cut), () => res.destroy());
        return;
      }
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface MemoryLog extends SourceLogger {
  lines: string[];
}

export function memoryLog(): MemoryLog {
  const lines: string[] = [];
  return {
    lines,
    info: (msg, fields) => void lines.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    warn: (msg, fields) => void lines.push(`${msg} ${JSON.stringify(fields ?? {})}`),
  };
}

export function context(over: Partial<SourceContext> = {}): SourceContext & { log: MemoryLog } {
  return { asOf: '2024-11-21', cursor: null, fetch, log: memoryLog(), ...over } as SourceContext & { log: MemoryLog };
}

export interface ZipLayout {
  /** 8 = deflate (default), 0 = stored. */
  method?: 0 | 8;
  /**
   * Written as a streaming writer does (general-purpose flag bit 3): CRC and sizes zero in the
   * local header, followed by a data descriptor after the data; only the central directory has them.
   */
  dataDescriptor?: boolean;
}

/** A one-entry ZIP, laid out as OpenDART sends corpCode.zip (deflated, sizes in the local header). */
export function zipOne(name: string, content: string, layout: ZipLayout = {}): Uint8Array {
  return zipOf([{ name, content }], layout);
}

export interface ZipEntry {
  /** A string is written as UTF-8 bytes; raw bytes as given (OpenDART's bulk ZIPs carry CP949 names). */
  name: string | Uint8Array;
  content: string | Uint8Array;
  /**
   * The bytes written as the member's data instead of its compressed content (to write a
   * damaged member); the headers still declare the content's CRC and size.
   */
  data?: Uint8Array;
  /** The uncompressed size the headers declare instead of the content's (a ZIP bomb's headers). */
  declaredSize?: number;
}

/**
 * A ZIP of several entries, none flagged UTF-8 (general-purpose bit 11 clear), as OpenDART's
 * ZIPs are: a reader must decode the names itself.
 */
export function zipOf(entries: readonly ZipEntry[], layout: ZipLayout = {}): Uint8Array {
  const method = layout.method ?? 8;
  const streamed = layout.dataDescriptor ?? false;
  const flags = streamed ? 0x0008 : 0;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = typeof entry.content === 'string' ? Buffer.from(entry.content, 'utf8') : Buffer.from(entry.content);
    const comp = entry.data ? Buffer.from(entry.data) : method === 8 ? deflateRawSync(data) : data;
    const nameBuf = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : Buffer.from(entry.name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(streamed ? 0 : crc, 14);
    local.writeUInt32LE(streamed ? 0 : comp.length, 18);
    const size = entry.declaredSize ?? data.length;
    local.writeUInt32LE(streamed ? 0 : size, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const descriptor = Buffer.alloc(streamed ? 16 : 0);
    if (streamed) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(comp.length, 8);
      descriptor.writeUInt32LE(size, 12);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(comp.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, comp, descriptor);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + comp.length + descriptor.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, cd, eocd]));
}

/**
 * A ZIP whose central directory names `names.length` members on the same bytes: one local
 * header and one deflate stream of `content`, and every central entry pointing at them (the
 * overlapping-entry ZIP bomb: each name inflates to the whole). `shift` moves each entry after
 * the first that many bytes further in (still inside the first member's data), as a bomb whose
 * entries overlap without sharing an offset does.
 */
export function overlappingZip(names: readonly string[], content: Uint8Array, shift = 0): Uint8Array {
  const data = Buffer.from(content);
  const comp = deflateRawSync(data);
  const crc = crc32(data);
  const first = Buffer.from(names[0] ?? 'a', 'utf8');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(comp.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(first.length, 26);
  const body = Buffer.concat([local, first, comp]);
  const centrals = names.map((name, i) => {
    const nameBuf = Buffer.from(name, 'utf8');
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(comp.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(i * shift, 42);
    return Buffer.concat([central, nameBuf]);
  });
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(names.length, 8);
  eocd.writeUInt16LE(names.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(body.length, 16);
  return new Uint8Array(Buffer.concat([body, cd, eocd]));
}
