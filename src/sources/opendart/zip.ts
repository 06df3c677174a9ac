// OpenDART serves corpCode.xml as a ZIP archive holding a single CORPCODE.xml entry. fflate
// (pure JS, no native build) reads it: sizes and offsets come from the central directory, so
// entries written by a streaming writer (general-purpose flag bit 3: zero sizes in the local
// header, a data descriptor after the data) read like any other, and so does ZIP64.

import { unzipSync } from 'fflate';

/** The bytes of the first entry of a ZIP archive (stored or deflated). Throws on anything else. */
export function readFirstZipEntry(zip: Uint8Array): { name: string; data: Uint8Array } {
  let first: string | null = null;
  const files = unzipSync(zip, {
    // Only the first entry is inflated.
    filter: (entry) => {
      if (first !== null) return false;
      first = entry.name;
      return true;
    },
  });
  const data = first === null ? undefined : files[first];
  if (first === null || data === undefined) throw new Error('ZIP archive has no entry');
  return { name: first, data };
}
