// A value that writes its own JSON text, as UTF-8 bytes: `jsonBytes` (./json-bytes.ts)
// has it write them straight into the answer; anything else that serialises it
// (JSON.stringify, a test) goes through `toJSON`, which reads the value back from the same
// bytes, so both give the same JSON.
//
// Why: text made once and kept (a screen's rows, ./screen-rows.ts) is copied into the answer
// where the answer is written, once, with no number formatted again.

export abstract class JsonText {
  /** The most bytes `writeInto` writes. */
  abstract readonly maxBytes: number;

  /** Writes one JSON value's text in UTF-8 into `out` from `at` (room for `maxBytes` made); the position after it. */
  abstract writeInto(out: Uint8Array, at: number): number;

  /** The value the text is the JSON of. */
  toJSON(): unknown {
    const out = Buffer.allocUnsafe(this.maxBytes);
    return JSON.parse(out.toString('utf8', 0, this.writeInto(out, 0)));
  }
}
