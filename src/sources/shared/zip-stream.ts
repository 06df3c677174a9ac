// Reading a ZIP archive on disk member by member, never the whole archive (the official bulk
// releases are 1.2-1.5 GB: SEC's companyfacts.zip and submissions.zip, OpenDART's quarterly
// statement ZIPs). yauzl reads the central directory one entry at a time (lazyEntries) and
// inflates one member as a stream; only the member being read is in memory, and only as far
// as its consumer has read it.
//
// Member names: UTF-8 when the archive says so (general-purpose bit 11), else plain ASCII, else
// CP949 (OpenDART writes Korean names in CP949 without the UTF-8 flag).

import { open as openFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import yauzl from 'yauzl';

/** Why an archive or a member could not be read; callers count it by `reason`. */
export class ZipReadError extends Error {
  override readonly name = 'ZipReadError';
  constructor(
    /** A short stable reason for counters: `not a ZIP`, `truncated or corrupt ZIP`, `member too large`. */
    readonly reason: string,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface ZipLimits {
  /** A member declaring more uncompressed bytes than this is refused (`member too large`). */
  maxMemberBytes?: number;
  /** An archive with more members than this is refused after that many (`too many members`). */
  maxMembers?: number;
}

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

/** Throws a ZipReadError unless the file starts with a ZIP signature (`PK`). */
export async function assertZipSignature(path: string): Promise<void> {
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead < 4 || head[0] !== 0x50 || head[1] !== 0x4b) {
      const text = head.subarray(0, bytesRead).toString('latin1').replace(/\s+/g, ' ').trim();
      const looksHtml = /<(!doctype|html|head|body)/i.test(text);
      throw new ZipReadError('not a ZIP', looksHtml ? `an HTML page (${text.slice(0, 60)})` : `starts with ${JSON.stringify(text.slice(0, 20))}`);
    }
  } finally {
    await handle.close();
  }
}

/**
 * The members of the ZIP archive at `path`, one at a time. A member must be consumed (or
 * skipped) before the next is read. Throws ZipReadError for a file that is not a ZIP, a
 * truncated or corrupt archive (its central directory is read lazily, so a corrupt entry may
 * surface after earlier members were read), or a member past the limits.
 */
export async function* zipMembers(path: string, limits: ZipLimits = {}): AsyncGenerator<ZipMember> {
  await assertZipSignature(path);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, z) => {
      if (err || !z) reject(new ZipReadError('truncated or corrupt ZIP', err?.message ?? 'no archive'));
      else resolve(z);
    });
  });
  try {
    let count = 0;
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
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
      if (entry === null) return;
      const rawName = entry.fileName as unknown as Buffer;
      const name = decodeMemberName(Buffer.from(rawName), (entry.generalPurposeBitFlag & UTF8_FLAG) !== 0);
      if (name.endsWith('/')) continue;
      count += 1;
      if (limits.maxMembers !== undefined && count > limits.maxMembers) {
        throw new ZipReadError('too many members', `more than ${limits.maxMembers}`);
      }
      if (limits.maxMemberBytes !== undefined && entry.uncompressedSize > limits.maxMemberBytes) {
        throw new ZipReadError('member too large', `${name} declares ${entry.uncompressedSize} bytes (limit ${limits.maxMemberBytes})`);
      }
      const open = (): Promise<Readable> =>
        new Promise<Readable>((resolve, reject) => {
          zip.openReadStream(entry, (err, stream) => {
            if (err || !stream) reject(new ZipReadError('truncated or corrupt ZIP', `${name}: ${err?.message ?? 'no stream'}`));
            else resolve(stream);
          });
        });
      yield {
        name,
        compressedSize: entry.compressedSize,
        size: entry.uncompressedSize,
        open,
        bytes: async () => {
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
