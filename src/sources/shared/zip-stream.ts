// Reading a ZIP archive on disk member by member, never the whole archive (the official bulk
// releases are 1.2-1.5 GB: SEC's companyfacts.zip and submissions.zip, OpenDART's quarterly
// statement ZIPs). yauzl reads the central directory one entry at a time (lazyEntries) and
// inflates one member as a stream; only the member being read is in memory, and only as far
// as its consumer has read it.
//
// Member names: UTF-8 when the archive says so (general-purpose bit 11), else plain ASCII, else
// CP949 (OpenDART writes Korean names in CP949 without the UTF-8 flag).

import { read as readFd } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import yauzl from 'yauzl';

/** Why an archive or a member could not be read; callers count it by `reason`. */
export class ZipReadError extends Error {
  override readonly name = 'ZipReadError';
  constructor(
    /**
     * A short stable reason for counters: `not a ZIP`, `truncated or corrupt ZIP`, `member too
     * large`, `too many members`, `archive too large`.
     */
    readonly reason: string,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface ZipLimits {
  /** A member declaring more uncompressed bytes than this is refused before it is read (`member too large`). */
  maxMemberBytes?: number;
  /** An archive with more members than this is refused before any member is read (`too many members`). */
  maxMembers?: number;
  /**
   * An archive whose members declare more uncompressed bytes than this in all is refused before
   * any member is read (`archive too large`); each member's stream fails if it inflates to more
   * than it declares, so this bounds what the archive inflates to.
   */
  maxTotalBytes?: number;
  /**
   * `bytes()` of a member declaring more than this is refused before anything is read or
   * allocated (`member too large`); `open()` streams a member of any size.
   */
  maxBufferBytes?: number;
}

/**
 * Limits every read has unless its caller sets tighter ones: what an archive declares is checked
 * before anything is allocated for it (a ZIP bomb declares a few GB behind a few MB). Above the
 * real archives: OpenDART's statement ZIPs hold a handful of members of up to ~300 MB; SEC's
 * companyfacts.zip ~19,000 members, ~20 GB in all; submissions.zip ~900,000 small members.
 */
export const DEFAULT_ZIP_LIMITS: Readonly<Required<ZipLimits>> = {
  maxMemberBytes: 8 * 1024 ** 3,
  maxMembers: 2_000_000,
  maxTotalBytes: 64 * 1024 ** 3,
  maxBufferBytes: 512 * 1024 ** 2,
};

export interface ZipMember {
  /** The member's path inside the archive, decoded (see above). */
  name: string;
  /** Declared sizes; the stream fails if the data does not match them. */
  compressedSize: number;
  size: number;
  /** The member's bytes, inflated as they are read. */
  open(): Promise<Readable>;
  /** The whole member as one buffer (for members known to be small, e.g. one company's JSON). */
  bytes(): Promise<Buffer>;
}

const UTF8_FLAG = 0x800;

export function decodeMemberName(raw: Buffer, utf8Flag: boolean): string {
  if (utf8Flag) return raw.toString('utf8');
  if (raw.every((b) => b < 0x80)) return raw.toString('latin1');
  return iconv.decode(raw, 'cp949');
}

const WINDOW_BYTES = 1024 * 1024;

/**
 * yauzl's reader over an open file, with a read-ahead window for the small reads of the central
 * directory: yauzl reads each entry's header with two reads of its own, so SEC's submissions.zip
 * (~900,000 members) took ~2 million system calls through yauzl.open (about 0.1 ms of CPU a
 * member, 100,000 members in ~10 s, mostly system time); through a 1 MiB window it takes a few
 * thousand. Member data is streamed straight from the file, outside the window.
 */
class WindowedFileReader extends yauzl.RandomAccessReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly fd: number,
    private readonly onClose: () => void,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new FileRangeStream(this.fd, start, end);
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    // yauzl takes the bytes read as a second argument (a short read is "unexpected EOF"); its types leave it out.
    const done = callback as (err: Error | null, bytesRead?: number) => void;
    const from = position - this.windowStart;
    if (from >= 0 && from + length <= this.window.length) {
      this.window.copy(buffer, offset, from, from + length);
      queueMicrotask(() => done(null, length));
      return;
    }
    const chunk = Buffer.allocUnsafe(Math.max(length, WINDOW_BYTES));
    readFd(this.fd, chunk, 0, chunk.length, position, (err, bytesRead) => {
      if (err) {
        done(err);
        return;
      }
      this.window = chunk.subarray(0, bytesRead);
      this.windowStart = position;
      const n = Math.min(length, bytesRead);
      chunk.copy(buffer, offset, 0, n);
      done(null, n);
    });
  }

  override close(callback: (err: Error | null) => void): void {
    this.onClose();
    callback(null);
  }
}

/**
 * Bytes [start, end) of an open file by positional reads. fs.createReadStream closes its file
 * descriptor when destroyed, even with autoClose off, and the descriptor is the archive's.
 */
class FileRangeStream extends Readable {
  constructor(
    private readonly fd: number,
    private position: number,
    private readonly end: number,
  ) {
    super();
  }

  override _read(size: number): void {
    const length = Math.min(size, this.end - this.position);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const chunk = Buffer.allocUnsafe(length);
    readFd(this.fd, chunk, 0, length, this.position, (err, bytesRead) => {
      if (err) {
        this.destroy(err);
        return;
      }
      if (bytesRead === 0) {
        // The file ends before the member does; yauzl's byte count reports the short member.
        this.push(null);
        return;
      }
      this.position += bytesRead;
      this.push(chunk.subarray(0, bytesRead));
    });
  }
}

/** Throws a ZipReadError unless the file starts with a ZIP signature (`PK`). */
export async function assertZipSignature(path: string): Promise<void> {
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    assertZipHead(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** Throws a ZipReadError unless `head` (an archive's first bytes) starts with `PK`, saying what it looks like. */
function assertZipHead(head: Buffer): void {
  if (head.length < 4 || head[0] !== 0x50 || head[1] !== 0x4b) {
    const text = head.subarray(0, 512).toString('latin1').replace(/\s+/g, ' ').trim();
    const looksHtml = /<(!doctype|html|head|body)/i.test(text);
    throw new ZipReadError('not a ZIP', looksHtml ? `an HTML page (${text.slice(0, 60)})` : `starts with ${JSON.stringify(text.slice(0, 20))}`);
  }
}

/** yauzl's reader over an archive held in memory (a small API answer). */
class BufferReader extends yauzl.RandomAccessReader {
  constructor(private readonly bytes: Buffer) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from([this.bytes.subarray(start, end)]);
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    const done = callback as (err: Error | null, bytesRead?: number) => void;
    const n = Math.max(0, Math.min(length, this.bytes.length - position));
    this.bytes.copy(buffer, offset, position, position + n);
    queueMicrotask(() => done(null, n));
  }
}

/** Local file header before a member's name and extra field (APPNOTE 4.3.7). */
const LOCAL_HEADER_BYTES = 30;

function openYauzl(reader: yauzl.RandomAccessReader, size: number): Promise<yauzl.ZipFile> {
  return new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, z) => {
      if (err || !z) reject(new ZipReadError('truncated or corrupt ZIP', err?.message ?? 'no archive'));
      else resolve(z);
    });
  });
}

/** The next central directory entry, or null at its end. */
function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise<yauzl.Entry | null>((resolve, reject) => {
    const onEntry = (e: yauzl.Entry): void => {
      cleanup();
      resolve(e);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(null);
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new ZipReadError('truncated or corrupt ZIP', err.message));
    };
    const cleanup = (): void => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/**
 * Where each member's bytes may lie: between its local header's offset and the next member's (or
 * the central directory's start). Built from the whole central directory before any member is
 * read, so an archive whose entries share or overlap their bytes (the overlapping-entry ZIP bomb:
 * many names on one deflate stream, each inflating to the whole) is refused before anything of
 * it is inflated.
 */
export class MemberExtents {
  private constructor(private readonly starts: Float64Array) {}

  /**
   * Checks the central directory's entries (their local header offsets and compressed sizes, in
   * directory order; numbers only, so a directory of a million entries costs ~16 MB): sorted by
   * offset, each header's fixed part and compressed data must end at or before the next header's
   * offset, the last before `centralDirectoryStart`; two entries at one offset overlap.
   */
  static check(offsets: readonly number[], sizes: readonly number[], centralDirectoryStart: number): MemberExtents {
    const order = Uint32Array.from(offsets.keys()).sort((a, b) => (offsets[a] as number) - (offsets[b] as number));
    const starts = new Float64Array(order.length);
    order.forEach((index, k) => {
      const offset = offsets[index] as number;
      const next = order[k + 1];
      const limit = next === undefined ? centralDirectoryStart : (offsets[next] as number);
      const end = offset + LOCAL_HEADER_BYTES + (sizes[index] as number);
      if (end > limit) {
        // Entries are named by their place in the central directory (1-based).
        throw next === undefined
          ? new ZipReadError('member outside the archive', `entry ${index + 1} of the central directory (at ${offset}) runs to ${end}, past the directory's start (${centralDirectoryStart})`)
          : new ZipReadError('overlapping members', `entry ${index + 1} of the central directory (at ${offset}, ${sizes[index]} compressed bytes) overlaps entry ${next + 1} (at ${limit})`);
      }
      starts[k] = offset;
    });
    return new MemberExtents(starts);
  }

  /** The first byte past the room of the member whose local header is at `offset`. */
  limitOf(offset: number, centralDirectoryStart: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.starts.length ? (this.starts[lo] as number) : centralDirectoryStart;
  }
}

/** The central directory's start: where yauzl's entry cursor is before the first entry is read. */
function centralDirectoryStart(zip: yauzl.ZipFile): number {
  return (zip as unknown as { readEntryCursor: number }).readEntryCursor;
}

/**
 * The members of the ZIP archive at `path`, one at a time. A member must be consumed (or
 * skipped) before the next is read. Throws ZipReadError for a file that is not a ZIP, a
 * truncated or corrupt archive, entries that overlap or lie outside the archive's data (checked
 * over the whole central directory before the first member is yielded), more members than
 * allowed, or a member past the size limits.
 */
export async function* zipMembers(path: string, given: ZipLimits = {}): AsyncGenerator<ZipMember> {
  await assertZipSignature(path);
  const handle = await openFile(path, 'r');
  let size: number;
  try {
    ({ size } = await handle.stat());
  } catch (err) {
    await handle.close();
    throw err;
  }
  // The survey's reader leaves the file open for the second pass, whose reader closes it when
  // yauzl lets go of it (zip.close() and no member stream open).
  yield* archiveMembers(
    (last) => new WindowedFileReader(handle.fd, last ? () => void handle.close() : () => undefined),
    size,
    given,
    () => handle.close(),
  );
}

/**
 * The members of a ZIP archive held in memory (a small API answer, e.g. OpenDART's corpCode.xml
 * ZIP), under the same checks and limits as `zipMembers`.
 */
export async function* zipMembersOfBuffer(bytes: Uint8Array, given: ZipLimits = {}): AsyncGenerator<ZipMember> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assertZipHead(buffer);
  yield* archiveMembers(() => new BufferReader(buffer), buffer.length, given, async () => undefined);
}

/**
 * The members behind `reader` (made twice: `last` false for the survey of the central directory,
 * true for the pass that yields); `abandon` lets go of the source when neither pass got to own it.
 */
async function* archiveMembers(
  reader: (last: boolean) => yauzl.RandomAccessReader,
  size: number,
  given: ZipLimits,
  abandon: () => Promise<void>,
): AsyncGenerator<ZipMember> {
  const limits: Required<ZipLimits> = {
    maxMemberBytes: given.maxMemberBytes ?? DEFAULT_ZIP_LIMITS.maxMemberBytes,
    maxMembers: given.maxMembers ?? DEFAULT_ZIP_LIMITS.maxMembers,
    maxTotalBytes: given.maxTotalBytes ?? DEFAULT_ZIP_LIMITS.maxTotalBytes,
    maxBufferBytes: given.maxBufferBytes ?? DEFAULT_ZIP_LIMITS.maxBufferBytes,
  };
  let zip: yauzl.ZipFile;
  let extents: MemberExtents;
  let cdStart: number;
  try {
    // First pass: every entry's extent.
    const survey = await openYauzl(reader(false), size);
    cdStart = centralDirectoryStart(survey);
    try {
      const offsets: number[] = [];
      const sizes: number[] = [];
      let members = 0;
      let declaredTotal = 0;
      for (;;) {
        let e: yauzl.Entry | null;
        try {
          e = await nextEntry(survey);
        } catch {
          // A broken entry: the members before it are checked among themselves and read; the
          // second pass meets the same break there and throws it.
          break;
        }
        if (e === null) break;
        const rawName = e.fileName as unknown as Buffer;
        // A directory entry's name ends in `/` in every encoding the names come in.
        if (rawName[rawName.length - 1] !== 0x2f && ++members > limits.maxMembers) throw new ZipReadError('too many members', `more than ${limits.maxMembers}`);
        declaredTotal += e.uncompressedSize;
        if (declaredTotal > limits.maxTotalBytes) {
          const name = decodeMemberName(Buffer.from(rawName), (e.generalPurposeBitFlag & UTF8_FLAG) !== 0);
          throw new ZipReadError('archive too large', `its members declare more than ${limits.maxTotalBytes} bytes in all (${declaredTotal} up to ${name})`);
        }
        offsets.push(e.relativeOffsetOfLocalHeader);
        sizes.push(e.compressedSize);
      }
      extents = MemberExtents.check(offsets, sizes, cdStart);
    } finally {
      survey.close();
    }
    zip = await openYauzl(reader(true), size);
  } catch (err) {
    await abandon();
    throw err;
  }
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (entry === null) return;
      const rawName = entry.fileName as unknown as Buffer;
      const name = decodeMemberName(Buffer.from(rawName), (entry.generalPurposeBitFlag & UTF8_FLAG) !== 0);
      if (name.endsWith('/')) continue;
      if (entry.uncompressedSize > limits.maxMemberBytes) {
        throw new ZipReadError('member too large', `${name} declares ${entry.uncompressedSize} bytes (limit ${limits.maxMemberBytes})`);
      }
      const open = async (): Promise<Readable> => {
        // The local header's own name and extra field lengths place the data: it must end
        // before the next member's header (or the central directory).
        let dataStart: number;
        try {
          dataStart = (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
        } catch (err) {
          throw new ZipReadError('truncated or corrupt ZIP', `${name}: ${(err as Error).message}`);
        }
        const limit = extents.limitOf(entry.relativeOffsetOfLocalHeader, cdStart);
        if (dataStart + entry.compressedSize > limit) {
          throw new ZipReadError('overlapping members', `${name}: its data (${dataStart}..${dataStart + entry.compressedSize}) runs past the next member or the central directory (${limit})`);
        }
        return new Promise<Readable>((resolve, reject) => {
          zip.openReadStream(entry, (err, stream) => {
            if (err || !stream) reject(new ZipReadError('truncated or corrupt ZIP', `${name}: ${err?.message ?? 'no stream'}`));
            else resolve(stream);
          });
        });
      };
      yield {
        name,
        compressedSize: entry.compressedSize,
        size: entry.uncompressedSize,
        open,
        bytes: async () => {
          if (entry.uncompressedSize > limits.maxBufferBytes) {
            throw new ZipReadError('member too large', `${name} declares ${entry.uncompressedSize} bytes, more than is read into memory (${limits.maxBufferBytes})`);
          }
          const stream = await open();
          const chunks: Buffer[] = [];
          try {
            for await (const chunk of stream) chunks.push(chunk as Buffer);
          } catch (err) {
            throw new ZipReadError('truncated or corrupt ZIP', `${name}: ${(err as Error).message}`);
          }
          return Buffer.concat(chunks);
        },
      };
    }
  } finally {
    zip.close();
  }
}
