// Lines of a byte stream (a bulk file's member), one at a time, each held only while it is read:
// a member is never decoded or split whole. A line longer than the cap is refused as soon as the
// bytes held for it pass the cap, so a hostile member (a header line of millions of tabs, a file
// without a newline) costs at most the cap, never its own size.

import { ZipReadError } from './zip-stream.js';

const NEWLINE = 0x0a;

/**
 * The stream's lines without their `\n` (a `\r` before it is kept: the caller decodes first).
 * Throws ZipReadError `line too long` for a line of more than `maxLineBytes` bytes.
 */
export async function* byteLines(stream: AsyncIterable<Buffer>, maxLineBytes: number, where: string): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const tooLong = (lineNo: number): ZipReadError => new ZipReadError('line too long', `${where} line ${lineNo}: more than ${maxLineBytes} bytes`);
  let lineNo = 0;
  for await (const chunk of stream) {
    let from = 0;
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from);
      if (at < 0) break;
      lineNo += 1;
      if (heldBytes + (at - from) > maxLineBytes) throw tooLong(lineNo);
      const part = chunk.subarray(from, at);
      yield heldBytes === 0 ? part : Buffer.concat([...held, part]);
      held = [];
      heldBytes = 0;
      from = at + 1;
    }
    if (from < chunk.length) {
      heldBytes += chunk.length - from;
      if (heldBytes > maxLineBytes) throw tooLong(lineNo + 1);
      // A copy: the chunk may be reused by its stream once this loop moves on.
      held.push(Buffer.from(chunk.subarray(from)));
    }
  }
  if (heldBytes > 0) yield Buffer.concat(held);
}
