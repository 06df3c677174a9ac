// The dashboard shell: header (navigation, API key, language), a hash router and the three
// pages. Each page renders from the public REST API only.

import './style.css';
import { ApiProblem, adoptKeyFromFragment, api, checkKey, setViewingAsOf, storeKey, storedKey, viewingAsOf } from './api.js';
import { errorText } from './errors.js';
import { koreanFontNote } from './fonts.js';
import { h, note, showError } from './dom.js';
import { currentLang, setLang, t, tDynamic } from './i18n.js';
import type { PageContext } from './page.js';
import { renderExports } from './pages/exports.js';
import { renderRankings } from './pages/rankings.js';
import { renderScreener } from './pages/screener.js';
import { renderStock } from './pages/stock.js';
import { serviceStatus } from './status.js';
import type { Health } from './types.js';

type Page = 'rankings' | 'screener' | 'stock' | 'exports';
const PAGES: Record<Page, (ctx: PageContext) => Promise<void>> = { rankings: renderRankings, screener: renderScreener, stock: renderStock, exports: renderExports };

const root = document.getElementById('app');
if (root === null) throw new Error('index.html has no #app');

const header = h('header', { class: 'top' });
// The service's state (src/status.ts): progress while loading, the coverage numbers always.
const statusPanel = h('section', { id: 'service-status', class: 'card service-status', hidden: true, 'aria-live': 'polite' });
const view = h('main', { id: 'view' });
root.append(header, h('div', { class: 'status-wrap' }, statusPanel), view);
const status = serviceStatus(statusPanel, () => route());

let renderSeq = 0;
let disposers: (() => void)[] = [];

function parseHash(): { page: Page; path: string[]; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, '');
  const [pathPart = '', query = ''] = raw.split('?', 2);
  const [name = '', ...path] = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  const page: Page = name === 'stock' || name === 'exports' || name === 'screener' ? name : 'rankings';
  return { page, path, params: new URLSearchParams(query) };
}

/** Why the key field is back: the stored key the service refused (shown once, by the next render). */
let keyRefusal: string | null = null;

function keyRefused(err: unknown): string {
  return err instanceof ApiProblem && (err.status === 401 || err.status === 403) ? t('keyRejected') : errorText(err);
}

/** Today in Seoul, `YYYY-MM-DD`: the latest day the date picker offers. */
function seoulToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/**
 * The as-of picker: the day the stock pages answer for (src/api.ts `viewingAsOf`), empty for
 * today. Not on the exports page, whose trade statistics are not asked as of a day.
 */
function asOfPicker(page: Page): HTMLElement | null {
  if (page === 'exports') return null;
  const current = viewingAsOf();
  const input = h('input', { type: 'date', id: 'as-of', max: seoulToday(), value: current ?? '', 'aria-label': t('asOfLabel') });
  input.addEventListener('change', () => {
    // A day after today is today; an empty field is today.
    const day = input.value !== '' && input.value < seoulToday() ? input.value : null;
    setViewingAsOf(day);
    route();
  });
  if (storedKey() !== null) {
    api<Health>('/health')
      .then((health) => {
        const earliest = health.asOf?.earliest;
        if (typeof earliest === 'string') input.min = earliest;
      })
      .catch(() => undefined);
  }
  return h(
    'div',
    { class: 'as-of-picker' },
    h('label', { for: 'as-of' }, t('asOfLabel')),
    input,
    current !== null
      ? h(
          'button',
          {
            type: 'button',
            id: 'as-of-today',
            onclick: () => {
              setViewingAsOf(null);
              route();
            },
          },
          t('asOfToday'),
        )
      : null,
  );
}

function renderHeader(active: Page): void {
  const key = storedKey();
  const refusal = keyRefusal;
  keyRefusal = null;
  const keyInput = h('input', { type: 'password', id: 'api-key', autocomplete: 'off', placeholder: 'sk_…', 'aria-label': t('apiKey') });
  const keyStatus = h('span', { class: refusal === null ? 'key-status' : 'key-status error', id: 'key-status', role: refusal === null ? null : 'alert' }, refusal ?? '');
  const submit = h('button', { type: 'submit' }, t('saveKey'));
  const keyForm = h(
    'form',
    {
      class: 'key-form',
      onsubmit: ((event: Event) => {
        event.preventDefault();
        const value = keyInput.value.trim();
        if (!value) return;
        // The key is tried first and kept only when the service knows it: a mistyped key
        // leaves the field as it was, with the reason beside it.
        submit.disabled = true;
        keyStatus.classList.remove('error');
        keyStatus.textContent = t('keyChecking');
        const keep = () => {
          storeKey(value);
          route();
        };
        checkKey<Health>(value)
          .then(keep)
          .catch((err: unknown) => {
            // Only a refusal of the key itself (401, 403) or no answer keeps it out: a service
            // still loading (503) or a spent quota (429) has judged the key and found it good.
            if (err instanceof ApiProblem && err.status !== 401 && err.status !== 403) {
              keep();
              return;
            }
            submit.disabled = false;
            keyStatus.textContent = keyRefused(err);
            keyStatus.classList.add('error');
            keyStatus.setAttribute('role', 'alert');
          });
      }) as EventListener,
    },
    key === null ? h('label', { for: 'api-key' }, t('apiKey')) : null,
    key === null ? keyInput : null,
    key === null ? submit : null,
    keyStatus,
    key !== null
      ? h(
          'button',
          {
            type: 'button',
            class: 'link',
            id: 'forget-key',
            onclick: () => {
              storeKey(null);
              route();
            },
          },
          t('forgetKey'),
        )
      : null,
  );
  const navLink = (page: Page, label: string, hash: string) =>
    h('a', { href: hash, class: page === active ? 'active' : null, 'aria-current': page === active ? 'page' : null, 'data-nav': page }, label);
  const fontNote = koreanFontNote();
  const picker = asOfPicker(active);
  header.replaceChildren(
    h('a', { class: 'brand', href: '#/rankings' }, t('appTitle')),
    h('nav', {}, navLink('rankings', t('navRankings'), '#/rankings'), navLink('screener', t('navScreener'), '#/screener'), navLink('stock', t('navStock'), '#/stock'), navLink('exports', t('navExports'), '#/exports')),
    ...(picker === null ? [] : [picker]),
    keyForm,
    h(
      'button',
      {
        type: 'button',
        id: 'lang-toggle',
        class: 'lang',
        onclick: () => {
          setLang(currentLang() === 'ko' ? 'en' : 'ko');
          route();
        },
      },
      t('langToggle'),
    ),
  );
  if (fontNote !== null) header.append(h('p', { class: 'font-note', id: 'font-note', role: 'note' }, t(fontNote)));
  if (key !== null) {
    api<Health>('/health')
      .then((health) => {
        keyStatus.textContent = `${t('keyOk')} · ${health.keyPrefix} · ${t('plan')} ${tDynamic(`plan_${health.plan}`)} · ${t('callsToday')} ${health.callsToday}/${health.dailyQuota}`;
      })
      .catch((err: unknown) => {
        // A stored key the service does not know (revoked, or a link with a wrong one): it is
        // dropped and the field comes back, with the reason.
        if (err instanceof ApiProblem && err.status === 401 && storedKey() === key) {
          storeKey(null);
          keyRefusal = t('keyRejected');
          route();
          return;
        }
        keyStatus.textContent = errorText(err);
        keyStatus.classList.add('error');
      });
  }
}

function route(): void {
  for (const dispose of disposers) dispose();
  disposers = [];
  const seq = ++renderSeq;
  const { page, path, params } = parseHash();
  document.documentElement.lang = currentLang();
  document.title = t('appTitle');
  renderHeader(page);
  status.refresh();
  view.replaceChildren();
  view.dataset.page = page;
  if (storedKey() === null) {
    view.append(note(t('keyNeeded')));
    return;
  }
  const asOf = viewingAsOf();
  if (asOf !== null && page !== 'exports') {
    view.append(
      h(
        'p',
        { class: 'note as-of-banner', id: 'as-of-banner', role: 'status' },
        t('asOfViewing', { date: asOf }),
        ' ',
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => {
              setViewingAsOf(null);
              route();
            },
          },
          t('asOfBack'),
        ),
      ),
    );
  }
  const ctx: PageContext = {
    view,
    path,
    params,
    isCurrent: () => seq === renderSeq,
    onDispose: (fn) => disposers.push(fn),
    navigate: (hash) => {
      if (location.hash === hash) route();
      else location.hash = hash;
    },
  };
  PAGES[page](ctx).catch((err: unknown) => {
    if (!ctx.isCurrent()) return;
    showError(view, note(errorText(err), 'error'));
  });
}

window.addEventListener('hashchange', route);
adoptKeyFromFragment();
route();
