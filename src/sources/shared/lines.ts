// Lines of a byte stream (a bulk file's member), a chunk's worth at a time, each held only while
// it is read: a member is never decoded or split whole. A line longer than the cap is refused as
// soon as the bytes held for it pass the cap, so a hostile member (a header line of millions of
// tabs, a file without a newline) costs at most the cap, never its own size.

import { ZipReadError } from './zip-stream.js';

const NEWLINE = 0x0a;

/**
 * The stream's lines without their `\n` (a `\r` before it is kept: the caller decodes first), in
 * batches: the lines each chunk completes. Throws ZipReadError `line too long` for a line of more
 * than `maxLineBytes` bytes.
 */
export async function* byteLines(stream: AsyncIterable<Buffer>, maxLineBytes: number, where: string): AsyncGenerator<Buffer[]> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let lineNo = 0;
  const tooLong = (): ZipReadError => new ZipReadError('line too long', `${where} line ${lineNo + 1}: more than ${maxLineBytes} bytes`);
  for await (const chunk of stream) {
    const lines: Buffer[] = [];
    let from = 0;
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from);
      if (at < 0) break;
      if (heldBytes + (at - from) > maxLineBytes) throw tooLong();
      const part = chunk.subarray(from, at);
      lines.push(heldBytes === 0 ? part : Buffer.concat([...held, part]));
      lineNo += 1;
      held = [];
      heldBytes = 0;
      from = at + 1;
    }
    if (from < chunk.length) {
      heldBytes += chunk.length - from;
      if (heldBytes > maxLineBytes) throw tooLong();
      held.push(chunk.subarray(from));
    }
    if (lines.length > 0) yield lines;
  }
  if (heldBytes > 0) yield [Buffer.concat(held)];
}
