// Downloading SEC's nightly bulk archives (companyfacts.zip ~1.3 GB, submissions.zip ~1.5 GB)
// into a folder for SecBulkReader. Each is one request under the source's rate limit, with the
// User-Agent SEC requires (https://www.sec.gov/os/accessing-edgar-data), its body streamed to a
// temporary file beside the target (never held in memory), checked, then renamed into place, so
// a reader never sees half a file. The file's modification time is set to the answer's
// Last-Modified: that is the archive's vintage, and the next download asks If-Modified-Since it
// (a 304 keeps the file on disk).

import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type HttpClient, SourceHttpError } from '../http.js';
import type { ProgressSink } from '../progress.js';
import { assertZipSignature, ZipReadError } from '../shared/zip-stream.js';
import { COMPANYFACTS_ZIP, SUBMISSIONS_ZIP } from './bulk.js';

/** The archives and their paths under www.sec.gov, companyfacts first (without it there is nothing to read). */
export const SEC_ARCHIVES = [
  { file: COMPANYFACTS_ZIP, path: '/Archives/edgar/daily-index/xbrl/companyfacts.zip' },
  { file: SUBMISSIONS_ZIP, path: '/Archives/edgar/daily-index/bulkdata/submissions.zip' },
] as const;

/** A download past this many bytes is refused unless `maxBytes` says otherwise. */
export const DEFAULT_MAX_ARCHIVE_BYTES = 4 * 1024 ** 3;

/** Why a download was refused: stable reasons, as ZipReadError reasons. */
export const SEC_DOWNLOAD_REFUSED = {
  truncated: 'truncated download',
  tooLarge: 'download past the size cap',
} as const;

export interface SecDownloadOptions {
  /** www.sec.gov unless given. */
  wwwBaseUrl?: string;
  progress: ProgressSink;
  signal?: AbortSignal;
  fetch: typeof fetch;
  /** "Company Name admin@example.com", as SEC requires. */
  userAgent: string;
  /** Bytes past which a download is refused (default DEFAULT_MAX_ARCHIVE_BYTES). */
  maxBytes?: number;
  /**
   * Counts a refused download (`not a ZIP`, `truncated download`, `download past the size cap`)
   * with the archive's name. A refused companyfacts.zip with no earlier copy on disk is thrown
   * instead (there is nothing to read).
   */
  skip?: (reason: string, example?: string) => void;
}

const PROGRESS_STEP = 8 * 1024 * 1024;

/**
 * Brings companyfacts.zip and submissions.zip in `dir` up to date. Returns the archives present
 * after the call (fresh, or kept from before when not modified or when a fresh copy was
 * refused) and the vintage of the oldest of them (ISO 8601, from Last-Modified). Throws a
 * SourceHttpError for an HTTP failure, and the refusal (a ZipReadError) when companyfacts.zip
 * can be had neither fresh nor from before.
 */
export async function downloadSecArchives(http: HttpClient, dir: string, options: SecDownloadOptions): Promise<{ files: string[]; vintage: string }> {
  const base = (options.wwwBaseUrl ?? 'https://www.sec.gov').replace(/\/+$/, '');
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  const vintages: Date[] = [];
  let bytesBefore = 0;
  let refused = 0;
  for (const archive of SEC_ARCHIVES) {
    const target = join(dir, archive.file);
    const outcome = await downloadArchive(http, `${base}${archive.path}`, target, archive.file, options, bytesBefore);
    bytesBefore += outcome.bytes;
    if ('refused' in outcome) {
      const kept = await stat(target).catch(() => null);
      if (kept === null && archive.file === COMPANYFACTS_ZIP) throw outcome.refused;
      options.skip?.(outcome.refused.reason, archive.file);
      refused += 1;
      if (kept === null) continue;
      files.push(target);
      vintages.push(kept.mtime);
      continue;
    }
    files.push(target);
    vintages.push(outcome.vintage);
  }
  options.progress({ phase: 'done', bytes: bytesBefore, note: refused > 0 ? `${refused} archive(s) refused` : null });
  const oldest = vintages.reduce((a, b) => (b < a ? b : a));
  return { files, vintage: oldest.toISOString() };
}

type Outcome = { vintage: Date; bytes: number } | { refused: ZipReadError; bytes: number };

async function downloadArchive(http: HttpClient, url: string, target: string, name: string, options: SecDownloadOptions, bytesBefore: number): Promise<Outcome> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES;
  const have = await stat(target).catch(() => null);
  const headers: Record<string, string> = { 'user-agent': options.userAgent, accept: 'application/zip, */*' };
  if (have) headers['if-modified-since'] = have.mtime.toUTCString();
  await http.pace();
  let res: Response;
  try {
    res = await options.fetch(url, { headers, signal: options.signal });
  } catch (err) {
    if (options.signal?.aborted) throw new SourceHttpError('sec: aborted', 'aborted', url);
    throw new SourceHttpError(`sec: network error for ${url}: ${err instanceof Error ? err.message : String(err)}`, 'network', url);
  }
  const lastModified = httpDate(res.headers.get('last-modified')) ?? httpDate(res.headers.get('date')) ?? new Date();
  // Not modified since the copy on disk: keep it (also when a server ignores If-Modified-Since).
  if (have && (res.status === 304 || (res.status === 200 && lastModified <= have.mtime))) {
    await res.body?.cancel();
    options.progress({ phase: 'downloading', note: `${name}: not modified since ${have.mtime.toISOString()}` });
    return { vintage: have.mtime, bytes: 0 };
  }
  if (res.status !== 200 || res.body === null) {
    const snippet = (await res.text().catch(() => '')).slice(0, 120).replace(/\s+/g, ' ');
    throw new SourceHttpError(`sec: HTTP ${res.status} from ${url}: ${snippet}`, 'http', url, res.status);
  }
  // A body sent with a content-encoding is decoded by fetch: its length is not the file's.
  const declared = res.headers.get('content-encoding') ? null : Number(res.headers.get('content-length') ?? NaN);
  const total = declared !== null && Number.isFinite(declared) ? declared : null;
  if (total !== null && total > maxBytes) {
    await res.body.cancel();
    return { refused: new ZipReadError(SEC_DOWNLOAD_REFUSED.tooLarge, `${name} declares ${total} bytes (limit ${maxBytes})`), bytes: 0 };
  }

  const partial = `${target}.part`;
  let received = 0;
  let reported = 0;
  let overCap = false;
  options.progress({ phase: 'downloading', unit: 'bytes', done: 0, total, bytes: bytesBefore, note: name });
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > maxBytes) {
        overCap = true;
        done(new Error(`more than ${maxBytes} bytes`));
        return;
      }
      if (received - reported >= PROGRESS_STEP) {
        reported = received;
        options.progress({ done: received, bytes: bytesBefore + received });
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), count, createWriteStream(partial), { signal: options.signal });
  } catch (err) {
    await rm(partial, { force: true });
    if (options.signal?.aborted) throw new SourceHttpError('sec: aborted', 'aborted', url);
    if (overCap) return { refused: new ZipReadError(SEC_DOWNLOAD_REFUSED.tooLarge, `${name}: more than ${maxBytes} bytes`), bytes: received };
    // The disk's failure (no space, no permission) is not the archive's: it is thrown as it is.
    if (err instanceof Error && ['open', 'write', 'close'].includes(String((err as NodeJS.ErrnoException).syscall))) throw err;
    // The connection dropped part way (undici: "terminated"): what came is not the archive.
    return { refused: new ZipReadError(SEC_DOWNLOAD_REFUSED.truncated, `${name} after ${received} bytes: ${err instanceof Error ? err.message : String(err)}`), bytes: received };
  }
  options.progress({ done: received, bytes: bytesBefore + received });
  if (total !== null && received !== total) {
    await rm(partial, { force: true });
    return { refused: new ZipReadError(SEC_DOWNLOAD_REFUSED.truncated, `${name}: ${received} of ${total} bytes`), bytes: received };
  }
  try {
    await assertZipSignature(partial);
  } catch (err) {
    await rm(partial, { force: true });
    if (err instanceof ZipReadError) return { refused: err, bytes: received };
    throw err;
  }
  await utimes(partial, lastModified, lastModified);
  await rename(partial, target);
  return { vintage: lastModified, bytes: received };
}

function httpDate(value: string | null): Date | null {
  if (value === null) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at);
}
