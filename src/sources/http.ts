// Shared HTTP plumbing for every upstream adapter: per-attempt timeout, retries with
// exponential backoff on 429/5xx (honouring Retry-After), a simple request-spacing rate
// limiter, and one error class whose message never carries a credential. Adapters build
// URLs that may hold keys (data.go.kr `serviceKey`, OpenDART `crtfc_key`, ECOS puts the key
// in the path), so every message and log line goes through `redact`.

import type { CallMeter } from './meter.js';
import type { SourceContext, SourceLogger } from './source.js';

export type HttpErrorKind = 'http' | 'timeout' | 'network' | 'parse' | 'upstream' | 'aborted' | 'too large';

/**
 * The largest upstream body read into memory by default (64 MiB). The largest API answers the
 * adapters read are a few MB (an SEC companyfacts JSON of a large filer, OpenDART's corpCode
 * ZIP); the bulk archives are streamed to disk, not read here. Over it, a body is refused
 * before it is read whole (by its Content-Length when it declares one) and that source's run
 * fails, its previous data kept.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The one error adapters throw for upstream trouble. Message and url are already redacted. */
export class SourceHttpError extends Error {
  override readonly name = 'SourceHttpError';
  constructor(
    message: string,
    readonly kind: HttpErrorKind,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Query parameters that carry credentials at the providers we call. */
const SECRET_PARAMS = ['serviceKey', 'crtfc_key', 'apiKey', 'apikey', 'api_key', 'authkey', 'AUTH_KEY'];

/**
 * Removes every known secret (raw and URL-encoded forms) and the value of any credential
 * query parameter from a string. Applied to URLs, messages and log fields.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), encodeURIComponent(decodeSafe(secret))])) {
      out = out.split(form).join('***');
    }
  }
  const names = SECRET_PARAMS.join('|');
  return out.replace(new RegExp(`([?&](?:${names})=)[^&#\\s"']*`, 'g'), '$1***');
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The clock every pacing wait goes through: the rate limiters' spacing and the retry backoff.
 * Real time by default; a rehearsal (bench/first-start.ts) installs a simulated clock on which
 * a wait costs no real time, and the replica of the upstreams judges rates on the same clock.
 */
export interface PacingTimer {
  /** Milliseconds since the epoch on this clock. */
  now(): number;
  /** Resolves once `ms` have passed on this clock; rejects with an `aborted` error on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realTimer: PacingTimer = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new SourceHttpError('aborted', 'aborted', ''));
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new SourceHttpError('aborted', 'aborted', ''));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

let pacing: PacingTimer = realTimer;

/** Installs the pacing clock for the whole process; returns a function that restores the previous one. */
export function setPacingTimer(timer: PacingTimer): () => void {
  const previous = pacing;
  pacing = timer;
  return () => {
    pacing = previous;
  };
}

/** The pacing clock's time (milliseconds since the epoch). */
export function pacingNow(): number {
  return pacing.now();
}

/** Spaces request starts at least `minIntervalMs` apart (one queue per limiter), on the pacing clock. */
export class RateLimiter {
  private next = 0;
  private chain: Promise<void> = Promise.resolve();
  constructor(private interval: number) {}

  get minIntervalMs(): number {
    return this.interval;
  }

  static perSecond(n: number): RateLimiter {
    return new RateLimiter(intervalOf(n));
  }

  /**
   * The one limiter of an upstream in this process. A provider's limit is on all of a client's
   * requests, whichever adapter makes them: SEC's 10 a second covers the SEC adapter, the US
   * price adapter's share-count lookups and the bulk download's ticker list alike, so each takes
   * its turn in this one queue. Asked again at another rate, it keeps the slower of the two.
   */
  static shared(upstream: string, perSecond: number): RateLimiter {
    const existing = sharedLimiters.get(upstream);
    if (existing) {
      existing.interval = Math.max(existing.interval, intervalOf(perSecond));
      return existing;
    }
    const limiter = RateLimiter.perSecond(perSecond);
    sharedLimiters.set(upstream, limiter);
    return limiter;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.chain.then(async () => {
      const wait = this.next - pacing.now();
      if (wait > 0) await sleep(wait, signal);
      this.next = pacing.now() + this.interval;
    });
    // A failed wait (abort) must not block later callers.
    this.chain = turn.catch(() => undefined);
    return turn;
  }
}

const intervalOf = (perSecond: number): number => (perSecond > 0 ? Math.ceil(1000 / perSecond) : 0);
const sharedLimiters = new Map<string, RateLimiter>();

/** Waits `ms` on the pacing clock (real time unless a rehearsal installed its own). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return pacing.sleep(ms, signal);
}

/** Retry-After is either delta-seconds or an HTTP-date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | null, now: number = pacing.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface HttpClientOptions {
  fetch: typeof fetch;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Extra attempts after the first, for 429/5xx, timeouts and network errors. */
  retries?: number;
  /** First backoff; doubles each attempt. */
  backoffMs?: number;
  /** Upper bound for any single wait, including a server's Retry-After. */
  maxBackoffMs?: number;
  /** The largest body read (`MAX_BODY_BYTES` by default); a larger one is a `too large` error, not retried. */
  maxBodyBytes?: number;
  limiter?: RateLimiter;
  /** Counts every request (retries too) against the day's allowance; throws AllowanceSpent before one past it. */
  meter?: CallMeter;
  /** Credentials to scrub from every message. */
  secrets?: readonly string[];
  headers?: Record<string, string>;
  signal?: AbortSignal;
  log?: SourceLogger;
  /** Name used in messages, e.g. `opendart`. */
  source: string;
}

/** The timeout and retry settings every adapter's configuration shares. */
export interface HttpTuning {
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Extra attempts after the first, for 429/5xx, timeouts and network errors. */
  retries?: number;
  /** First backoff; doubles each attempt. */
  backoffMs?: number;
  /** The largest body read (`MAX_BODY_BYTES` by default). */
  maxBodyBytes?: number;
}

/**
 * The HttpClient of one ingest run: the run's fetch, abort signal and log, the adapter's
 * tuning over its own defaults, and its limiter, secrets and headers.
 */
export function clientForRun(
  source: string,
  ctx: Pick<SourceContext, 'fetch' | 'signal' | 'log'>,
  tuning: HttpTuning,
  options: Pick<HttpClientOptions, 'limiter' | 'meter' | 'secrets' | 'headers'> & { defaults?: HttpTuning } = {},
): HttpClient {
  const { defaults, ...rest } = options;
  return new HttpClient({
    source,
    fetch: ctx.fetch,
    signal: ctx.signal,
    log: ctx.log,
    timeoutMs: tuning.timeoutMs ?? defaults?.timeoutMs ?? 30_000,
    retries: tuning.retries ?? defaults?.retries ?? 3,
    backoffMs: tuning.backoffMs ?? defaults?.backoffMs ?? 1_000,
    maxBodyBytes: tuning.maxBodyBytes ?? defaults?.maxBodyBytes ?? MAX_BODY_BYTES,
    ...rest,
  });
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Statuses returned to the caller instead of thrown (e.g. 404 for a missing daily file). */
  acceptStatus?: readonly number[];
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

const RETRYABLE = (status: number): boolean => status === 429 || (status >= 500 && status <= 599);

export class HttpClient {
  private readonly o: Required<Omit<HttpClientOptions, 'limiter' | 'meter' | 'signal' | 'log'>> &
    Pick<HttpClientOptions, 'limiter' | 'meter' | 'signal' | 'log'>;

  constructor(options: HttpClientOptions) {
    this.o = {
      timeoutMs: 30_000,
      retries: 3,
      backoffMs: 500,
      maxBackoffMs: 60_000,
      maxBodyBytes: MAX_BODY_BYTES,
      secrets: [],
      headers: {},
      ...options,
    };
  }

  redact(text: string): string {
    return redact(text, this.o.secrets);
  }

  async request(url: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const safeUrl = this.redact(url);
    let attempt = 0;
    for (;;) {
      if (this.o.signal?.aborted) throw new SourceHttpError(`${this.o.source}: aborted`, 'aborted', safeUrl);
      await this.o.limiter?.acquire(this.o.signal);
      this.o.meter?.take();
      let retryDelay: number | null = null;
      let failure: SourceHttpError;
      try {
        const res = await this.attempt(url, opts);
        if (res.status >= 200 && res.status < 300) return res;
        if (opts.acceptStatus?.includes(res.status)) return res;
        const snippet = this.redact(new TextDecoder().decode(res.body.slice(0, 200))).replace(/\s+/g, ' ');
        failure = new SourceHttpError(
          `${this.o.source}: HTTP ${res.status} from ${safeUrl}: ${snippet}`,
          'http',
          safeUrl,
          res.status,
        );
        if (!RETRYABLE(res.status)) throw failure;
        retryDelay = parseRetryAfter(res.headers.get('retry-after'));
      } catch (err) {
        if (err instanceof SourceHttpError) {
          if (err.kind === 'http' && !RETRYABLE(err.status ?? 0)) throw err;
          if (err.kind === 'aborted' || err.kind === 'too large') throw err;
          failure = err;
        } else {
          failure = new SourceHttpError(
            `${this.o.source}: network error for ${safeUrl}: ${this.redact(String(err instanceof Error ? err.message : err))}`,
            'network',
            safeUrl,
          );
        }
      }
      if (attempt >= this.o.retries) throw failure;
      const backoff = this.o.backoffMs * 2 ** attempt;
      const wait = Math.min(this.o.maxBackoffMs, Math.max(backoff, retryDelay ?? 0));
      this.o.log?.warn(`${this.o.source}: retrying`, {
        url: safeUrl,
        attempt: attempt + 1,
        waitMs: wait,
        reason: failure.message,
      });
      attempt += 1;
      await sleep(wait, this.o.signal);
    }
  }

  private async attempt(url: string, opts: RequestOptions): Promise<HttpResponse> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.o.timeoutMs);
    const outer = this.o.signal;
    const onOuterAbort = (): void => controller.abort();
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const res = await this.o.fetch(url, {
        method: opts.method ?? 'GET',
        headers: { ...this.o.headers, ...opts.headers },
        body: opts.body,
        signal: controller.signal,
      });
      const body = await this.readBody(res, url);
      return { status: res.status, headers: res.headers, body };
    } catch (err) {
      if (err instanceof SourceHttpError) throw err;
      const safeUrl = this.redact(url);
      if (timedOut) {
        throw new SourceHttpError(`${this.o.source}: timed out after ${this.o.timeoutMs} ms: ${safeUrl}`, 'timeout', safeUrl);
      }
      if (outer?.aborted) throw new SourceHttpError(`${this.o.source}: aborted`, 'aborted', safeUrl);
      const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
      throw new SourceHttpError(
        `${this.o.source}: network error for ${safeUrl}: ${this.redact(err instanceof Error ? err.message : String(err))}${this.redact(cause)}`,
        'network',
        safeUrl,
      );
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  /**
   * The body, at most `maxBodyBytes`: refused at once when its Content-Length says more, else
   * read chunk by chunk and cut off (the connection cancelled) as soon as it passes the cap.
   */
  private async readBody(res: Response, url: string): Promise<Uint8Array> {
    const cap = this.o.maxBodyBytes;
    const tooLarge = (what: string): SourceHttpError => {
      const safeUrl = this.redact(url);
      return new SourceHttpError(`${this.o.source}: response body too large from ${safeUrl}: ${what} (limit ${cap} bytes)`, 'too large', safeUrl, res.status);
    };
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > cap) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge(`Content-Length ${declared}`);
    }
    if (res.body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(`more than ${cap} bytes sent`);
      }
      chunks.push(value);
    }
    if (chunks.length === 1) return chunks[0]!;
    const body = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.byteLength;
    }
    return body;
  }

  /**
   * Waits for this client's turn under its rate limiter and counts the call against its meter,
   * for a request made outside `request` (a streamed download).
   */
  async pace(): Promise<void> {
    await this.o.limiter?.acquire(this.o.signal);
    this.o.meter?.take();
  }

  async getText(url: string, opts: RequestOptions = {}): Promise<string> {
    const res = await this.request(url, opts);
    return new TextDecoder('utf-8').decode(res.body);
  }

  async getBytes(url: string, opts: RequestOptions = {}): Promise<Uint8Array> {
    return (await this.request(url, opts)).body;
  }

  /** Fetches and parses JSON; a body that is not JSON becomes a `parse` error with a short, redacted excerpt. */
  async getJson(url: string, opts: RequestOptions = {}): Promise<unknown> {
    const text = await this.getText(url, opts);
    return this.parseJson(text, url);
  }

  parseJson(text: string, url: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.parseError(`body is not JSON: ${text.slice(0, 120)}`, url);
    }
  }

  /** A `parse` error for a body in an unexpected shape. */
  parseError(detail: string, url: string): SourceHttpError {
    const safeUrl = this.redact(url);
    return new SourceHttpError(
      `${this.o.source}: malformed response from ${safeUrl}: ${this.redact(detail).replace(/\s+/g, ' ')}`,
      'parse',
      safeUrl,
    );
  }

  /** An `upstream` error: the provider answered 200 with an error envelope (e.g. OpenDART status 020). */
  upstreamError(detail: string, url: string): SourceHttpError {
    const safeUrl = this.redact(url);
    return new SourceHttpError(`${this.o.source}: ${this.redact(detail)} (${safeUrl})`, 'upstream', safeUrl);
  }
}
