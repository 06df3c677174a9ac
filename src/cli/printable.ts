// Text from files and upstreams (archive member names, file names, upstream reasons) reaches the
// terminal only as printable characters: a name holding an escape sequence must not recolour,
// move or clear the operator's terminal, and a NUL or a bidirectional override must not hide
// what follows. Each such character is shown as an escape: `\x1b`, `\x00`, `\u202e`.

/** C0 controls, DEL, C1 controls, and the bidirectional embedding, override and isolate marks. */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character (and every bidirectional mark) written as an escape. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
