// A tiny element builder. API text (names, sectors, reasons) only ever reaches the page as
// text nodes, never as HTML.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (SVGElement | string)[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  return el;
}

/** A "Loading…" / error / empty line in a section. */
export function note(text: string, kind: 'info' | 'error' = 'info'): HTMLElement {
  return h('p', { class: `note ${kind}`, role: kind === 'error' ? 'alert' : null }, text);
}

/** A "Loading…" line: an error that comes instead takes its place (main.ts, showError). */
export function loadingNote(text: string): HTMLElement {
  const el = note(text);
  el.classList.add('loading');
  return el;
}

/**
 * Shows `message` where the page was loading: in place of the first "Loading…" line in `box`,
 * the others removed (a failed page leaves none), or at the end of `box` when none is left.
 */
export function showError(box: HTMLElement, message: HTMLElement): void {
  const waiting = [...box.querySelectorAll('.loading')];
  const first = waiting.shift();
  for (const el of waiting) el.remove();
  if (first === undefined) box.append(message);
  else first.replaceWith(message);
}
