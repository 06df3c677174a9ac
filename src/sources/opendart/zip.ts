// OpenDART serves corpCode.xml as a ZIP archive holding a single CORPCODE.xml entry. We read
// it with node:zlib rather than a ZIP dependency: sizes come from the central directory
// because writers that stream (general-purpose flag bit 3) leave them zero in the local header.

import { inflateRawSync } from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The bytes of the first entry of a ZIP archive (stored or deflated). */
export function readFirstZipEntry(zip: Uint8Array): { name: string; data: Uint8Array } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  if (zip.byteLength < 22 || view.getUint32(0, true) !== LOCAL) {
    throw new Error('not a ZIP archive');
  }
  // End of central directory: 22 bytes plus an optional comment of up to 65535 bytes.
  let eocd = -1;
  for (let i = zip.byteLength - 22; i >= Math.max(0, zip.byteLength - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  let method: number;
  let compressedSize: number;
  let localOffset: number;
  let name: string;
  if (eocd >= 0) {
    const cd = view.getUint32(eocd + 16, true);
    if (view.getUint32(cd, true) !== CENTRAL) throw new Error('ZIP central directory not found');
    method = view.getUint16(cd + 10, true);
    compressedSize = view.getUint32(cd + 20, true);
    const nameLen = view.getUint16(cd + 28, true);
    localOffset = view.getUint32(cd + 42, true);
    name = new TextDecoder().decode(zip.subarray(cd + 46, cd + 46 + nameLen));
  } else {
    method = view.getUint16(8, true);
    compressedSize = view.getUint32(18, true);
    localOffset = 0;
    name = new TextDecoder().decode(zip.subarray(30, 30 + view.getUint16(26, true)));
  }
  if (view.getUint32(localOffset, true) !== LOCAL) throw new Error('ZIP local header not found');
  const start = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
  const raw = zip.subarray(start, start + compressedSize);
  if (raw.byteLength !== compressedSize) throw new Error('ZIP entry truncated');
  if (method === 0) return { name, data: raw };
  if (method === 8) return { name, data: new Uint8Array(inflateRawSync(raw)) };
  throw new Error(`unsupported ZIP compression method ${method}`);
}
