// Outbound requests the authorization server makes to a URL a caller chose (client ID metadata
// documents): only to public unicast addresses, on a connection pinned to the address that was
// checked (no second DNS answer, so rebinding cannot swap it), streamed under a byte cap that
// stops the read, and under one deadline for the whole exchange.

import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (RFC 6145), IPv4-compatible (`::a.b.c.d`, deprecated but
 * still accepted by stacks), NAT64 (`64:ff9b::/96`), 6to4 (`2002:AABB:CCDD::`) and Teredo (the
 * client address, inverted, in the last 32 bits); `refused` for the local-use NAT64 prefix
 * (`64:ff9b:1::/48`). Null for other addresses.
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | 'refused' | null {
  const w = v6.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return fromWords(w[6]!, w[7]!);
  // The well-known NAT64 prefix 64:ff9b::/96 carries the address in its last 32 bits; the
  // local-use 64:ff9b:1::/48 is a network's own (its layout is the operator's): never public.
  if (range === 'rfc6052') return w[2] === 0 ? fromWords(w[6]!, w[7]!) : 'refused';
  if (range === '6to4') return fromWords(w[1]!, w[2]!);
  if (range === 'teredo') return fromWords(w[6]! ^ 0xffff, w[7]! ^ 0xffff);
  // IPv4-compatible (::/96): includes :: and ::1, whose IPv4 forms (0.0.0.0, 0.0.0.1) are unspecified.
  if (w.slice(0, 6).every((x) => x === 0)) return fromWords(w[6]!, w[7]!);
  return null;
}

/**
 * True only for a public unicast address: ipaddr.js's `range()` is `unicast` for the address
 * and, for an IPv6 form that carries an IPv4 address, for that address too. Loopback, private,
 * link-local, carrier-grade NAT, benchmarking (198.18/15), documentation, multicast, 240/4,
 * broadcast, unique-local and every other special range are refused; so is anything unparsable.
 */
export function publicUnicast(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner === 'refused') return false;
  if (inner !== null) return inner.range() === 'unicast';
  return v6.range() === 'unicast';
}

/** Why an outbound fetch failed; `reason` is stable (shown on the error page, tested). */
export class FetchRefused extends Error {
  constructor(
    readonly reason: 'internal_address' | 'unresolvable' | 'unreachable' | 'timeout' | 'too_large' | 'redirect',
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefused';
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

export interface FetchLimits {
  maxBytes: number;
  /** The whole exchange: resolution, connection, headers and body. */
  deadlineMs: number;
}

export interface FetchedBody {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface OutboundOptions {
  /** Accepts an address the connection may go to; default `publicUnicast`. */
  permit?: (address: string) => boolean;
  /** Resolves a host name (default: the system's, all addresses); asked once per fetch. */
  resolver?: Resolver;
}

/**
 * The address to connect to: every address the name has must be permitted (one refused address
 * refuses the name, so a mixed answer cannot be played), and the first is used. An IP literal is
 * checked as it is.
 */
export async function checkedAddress(hostname: string, o: OutboundOptions = {}): Promise<{ address: string; family: 4 | 6 }> {
  const permit = o.permit ?? publicUnicast;
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let answers: { address: string; family: number }[];
  if (ipaddr.isValid(bare)) answers = [{ address: bare, family: bare.includes(':') ? 6 : 4 }];
  else {
    try {
      answers = await (o.resolver ?? systemResolver)(bare);
    } catch {
      throw new FetchRefused('unresolvable', `the host ${bare} could not be resolved`);
    }
  }
  if (answers.length === 0) throw new FetchRefused('unresolvable', `the host ${bare} has no address`);
  if (answers.some((a) => !permit(a.address))) throw new FetchRefused('internal_address', 'the host is or resolves to an address that is not public');
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * GET `url` (http or https) from the checked address only, no redirects followed (a 3xx is
 * refused), reading at most `limits.maxBytes` of body (a longer body, or a Content-Length over
 * it, stops the read and refuses) within `limits.deadlineMs` from start to last byte. TLS is
 * verified against the URL's host name.
 */
export async function fetchPinned(url: URL, limits: FetchLimits, headers: Record<string, string>, o: OutboundOptions = {}): Promise<FetchedBody> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.deadlineMs);
  try {
    const target = await Promise.race([
      checkedAddress(url.hostname, o),
      new Promise<never>((_resolve, reject) => controller.signal.addEventListener('abort', () => reject(new FetchRefused('timeout', `no answer within ${limits.deadlineMs} ms`)), { once: true })),
    ]);
    // The connection's only lookup answers the checked address: no second resolution.
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all === true) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
      else callback(null, target.address, target.family);
    };
    return await new Promise<FetchedBody>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { method: 'GET', headers, lookup: pinned, agent: false, signal: controller.signal }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new FetchRefused('redirect', `the document answered ${status} (redirects are not followed)`));
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          res.destroy();
          reject(new FetchRefused('too_large', `the document is larger than ${limits.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            res.destroy();
            reject(new FetchRefused('too_large', `the document is larger than ${limits.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('close', () => {
          if (!res.complete) reject(controller.signal.aborted ? new FetchRefused('timeout', `the document was not read within ${limits.deadlineMs} ms`) : new FetchRefused('unreachable', 'the connection closed before the document ended'));
        });
        res.on('error', () => reject(controller.signal.aborted ? new FetchRefused('timeout', `the document was not read within ${limits.deadlineMs} ms`) : new FetchRefused('unreachable', 'the connection failed while reading')));
      });
      req.on('error', () => reject(controller.signal.aborted ? new FetchRefused('timeout', `the document was not read within ${limits.deadlineMs} ms`) : new FetchRefused('unreachable', 'the document could not be fetched')));
      req.end();
    });
  } finally {
    clearTimeout(timer);
  }
}
