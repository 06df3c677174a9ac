// OpenDART serves corpCode.xml as a ZIP archive holding a single CORPCODE.xml entry, read with
// the bulk files' reader (yauzl through zip-stream.ts, from memory): sizes and offsets come from
// the central directory, so entries written by a streaming writer (general-purpose flag bit 3:
// zero sizes in the local header, a data descriptor after the data) read like any other, and so
// does ZIP64; the same limits and overlap checks apply.

import { zipMembersOfBuffer } from '../shared/zip-stream.js';

/** The bytes of the first entry of a ZIP archive (stored or deflated). Throws on anything else. */
export async function readFirstZipEntry(zip: Uint8Array): Promise<{ name: string; data: Uint8Array }> {
  for await (const member of zipMembersOfBuffer(zip)) return { name: member.name, data: await member.bytes() };
  throw new Error('ZIP archive has no entry');
}
