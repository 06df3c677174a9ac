// Small pieces several pages share.

import { h } from './dom.js';
import { t, tDynamic } from './i18n.js';
import { BAND_KEYS, type AsOfInfo, type BandKey } from './types.js';
import { timestamp } from './format.js';

/**
 * "Updated 2026-11-20 12:00 (+09:00) · Source demo", shown with every block of API data; an
 * answer asked as of a past day also says that day, its last session and its last disclosure.
 */
export function metaLine(meta: { updatedAt: string; source: string; asOf?: AsOfInfo | undefined }): HTMLElement {
  const line = h(
    'p',
    { class: 'meta' },
    `${t('updatedAt')} `,
    h('time', { class: 'updated-at', datetime: meta.updatedAt }, timestamp(meta.updatedAt)),
    ` · ${t('source')} `,
    h('span', { class: 'source' }, meta.source),
  );
  const asOf = meta.asOf;
  if (asOf !== undefined) {
    line.append(' · ', h('span', { class: 'answer-as-of', 'data-as-of': asOf.date }, t('asOfAnswer', { date: asOf.date, session: asOf.lastSession ?? '-', disclosure: asOf.lastDisclosure ?? '-' })));
  }
  return line;
}

/** A row of toggle buttons; exactly one is pressed. */
export function segmented<V extends string>(
  name: string,
  options: readonly { value: V; label: string }[],
  selected: V,
  onSelect: (value: V) => void,
): HTMLElement {
  const group = h('div', { class: 'segmented', role: 'group', 'data-control': name });
  const buttons = options.map((option) =>
    h(
      'button',
      {
        type: 'button',
        'data-value': option.value,
        'aria-pressed': option.value === selected ? 'true' : 'false',
        onclick: () => {
          for (const b of buttons) b.setAttribute('aria-pressed', b.dataset.value === option.value ? 'true' : 'false');
          onSelect(option.value);
        },
      },
      option.label,
    ),
  );
  group.append(...buttons);
  return group;
}

export function section(title: string, id: string, ...children: (Node | null)[]): HTMLElement {
  const el = h('section', { class: 'card', id }, h('h2', {}, title));
  for (const child of children) if (child !== null) el.append(child);
  return el;
}

/** One checkbox per market-cap band, in band order; `go` gets the bands checked after a change. */
export function bandChecks(selected: readonly BandKey[], go: (bands: BandKey[]) => void): HTMLElement {
  return h(
    'div',
    { class: 'checks', 'data-control': 'bands' },
    ...BAND_KEYS.map((band) =>
      h(
        'label',
        {},
        h('input', {
          type: 'checkbox',
          value: band,
          checked: selected.includes(band),
          onchange: (event: Event) => {
            const on = (event.target as HTMLInputElement).checked;
            go(BAND_KEYS.filter((b) => (b === band ? on : selected.includes(b))));
          },
        }),
        tDynamic(`band_${band}`),
      ),
    ),
  );
}
