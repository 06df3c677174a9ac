// Korean names need a font with Hangul. style.css names the usual ones (Apple SD Gothic Neo,
// Noto Sans KR, Malgun Gothic); a system with none of them, nor any other font with Hangul,
// draws every syllable as the same empty box. The page then says which font to install.

let hangul: boolean | null = null;

/** Whether the page's font stack draws Hangul: two syllables that are drawn alike are boxes. */
export function hasHangulFont(): boolean {
  if (hangul !== null) return hangul;
  const canvas = document.createElement('canvas');
  canvas.width = 48;
  canvas.height = 48;
  const ctx = canvas.getContext('2d');
  if (ctx === null) return (hangul = true); // cannot tell: say nothing
  ctx.font = `32px ${getComputedStyle(document.documentElement).fontFamily}`;
  const drawn = (text: string): string => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.fillText(text, 4, 38);
    return canvas.toDataURL();
  };
  // A private-use code point has a glyph in no ordinary font: what a missing glyph looks like.
  const missing = drawn('\uE000');
  const han = drawn('한');
  hangul = han !== missing && han !== drawn('글');
  return hangul;
}

/** The label of the note to show, or null when Korean names render. */
export function koreanFontNote(): 'fontNote' | null {
  return hasHangulFont() ? null : 'fontNote';
}
