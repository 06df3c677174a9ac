// Stock search: find a stock by its Korean name, English name, code or ticker, the way people
// type them. Pure: the index is built once per dataset snapshot, a query is one pass over it.
//
// Both sides are compared as search keys: Unicode NFKC (full-width `ＳＡＭＳＵＮＧ` and half-width
// `ｻﾑｽﾝ` become their ordinary forms, compatibility jamo `ㅅ` the conjoining initial U+1109),
// lower case, and only letters and digits kept (spaces, `.`, `-`, `&`, `,`... dropped), so
// `Samsung Electronics`, `samsung-electronics` and `SAMSUNG ELECTRONICS CO,.LTD` share a prefix.
// A Korean name also matches by its initial consonants (초성), as Korean users type them:
// `ㅅㅅㅈㅈ` finds 삼성전자, and a mixed `삼ㅅ` matches 삼성 (a syllable matches itself, a lone
// initial any syllable that starts with it).

import type { Market } from './model.js';
import type { BandKey } from './results.js';

export interface SearchEntry {
  market: Market;
  code: string;
  name: string;
  nameEn: string | null;
  exchange: string;
  sector: string;
  currency: 'KRW' | 'USD';
  band: BandKey | null;
  /** Latest market cap in the stock's currency, for ordering; null without a price. */
  marketCap: number | null;
}

/** How a match was made: the tier orders the answer (exact code, then prefix, then contains). */
export type MatchKind = 'exact' | 'prefix' | 'contains';
export type MatchField = 'code' | 'name' | 'nameEn' | 'initials';

export interface SearchMatch {
  entry: SearchEntry;
  kind: MatchKind;
  field: MatchField;
}

/**
 * One field of every entry as one string, each key after a newline (keys never hold one), so a
 * query is a few native `indexOf` scans that touch only the entries that match.
 */
interface Haystack {
  text: string;
  /** Where each entry's key starts in `text`, ascending; one more at the end. */
  starts: Int32Array;
}

export interface SearchIndex {
  /** Entries in tie-break order: market cap descending (US at the snapshot's USD/KRW), then KR before US, then code. */
  readonly entries: readonly SearchEntry[];
  readonly code: Haystack;
  readonly name: Haystack;
  readonly nameEn: Haystack;
  /** The name with each Hangul syllable replaced by its initial consonant (U+1100..U+1112). */
  readonly initials: Haystack;
}

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;

/** The comparable form of a query or a name: NFKC, lower case, letters and digits only. */
export function searchKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(NOT_LETTER_OR_DIGIT, '');
}

const SYLLABLE_FIRST = 0xac00;
const SYLLABLE_LAST = 0xd7a3;
/** Syllables per initial consonant: 21 vowels x 28 finals. */
const PER_INITIAL = 21 * 28;
const CHOSEONG_FIRST = 0x1100;
const CHOSEONG_LAST = 0x1112;

const isInitial = (c: number): boolean => c >= CHOSEONG_FIRST && c <= CHOSEONG_LAST;

/** Each Hangul syllable of a search key replaced by its initial consonant; the rest unchanged. */
export function initialsOf(key: string): string {
  let out = '';
  for (const ch of key) {
    const c = ch.codePointAt(0) as number;
    out += c >= SYLLABLE_FIRST && c <= SYLLABLE_LAST ? String.fromCodePoint(CHOSEONG_FIRST + Math.floor((c - SYLLABLE_FIRST) / PER_INITIAL)) : ch;
  }
  return out;
}

/**
 * Builds the index of a snapshot's stocks. `usdKrw` puts US market caps on the won scale for
 * the tie-break (as the rankings convert US figures); without it US caps count one to one.
 */
export function searchIndex(list: readonly SearchEntry[], usdKrw: number | null): SearchIndex {
  return searchIndexOfKeyed(list.map(keyedEntry), usdKrw);
}

/** An entry with its search keys, made once (the costly part of an index: NFKC of three strings). */
export interface KeyedSearchEntry {
  entry: SearchEntry;
  code: string;
  name: string;
  nameEn: string;
  initials: string;
}

export function keyedEntry(entry: SearchEntry): KeyedSearchEntry {
  const name = searchKey(entry.name);
  return { entry, code: searchKey(entry.code), name, nameEn: entry.nameEn === null ? '' : searchKey(entry.nameEn), initials: initialsOf(name) };
}

/** `searchIndex` of entries keyed beforehand (the recompute keys them stock by stock, between pauses). */
export function searchIndexOfKeyed(list: readonly KeyedSearchEntry[], usdKrw: number | null): SearchIndex {
  const order = (e: SearchEntry): number => (e.marketCap === null ? -1 : e.market === 'US' ? e.marketCap * (usdKrw ?? 1) : e.marketCap);
  const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const keyed = [...list].sort(({ entry: a }, { entry: b }) => order(b) - order(a) || byCodeUnit(a.market, b.market) || byCodeUnit(a.code, b.code));
  return {
    entries: keyed.map((k) => k.entry),
    code: haystack(keyed.map((k) => k.code)),
    name: haystack(keyed.map((k) => k.name)),
    nameEn: haystack(keyed.map((k) => k.nameEn)),
    initials: haystack(keyed.map((k) => k.initials)),
  };
}

function haystack(keys: readonly string[]): Haystack {
  const starts = new Int32Array(keys.length + 1);
  let at = 0;
  keys.forEach((key, i) => {
    starts[i] = at + 1;
    at += key.length + 1;
  });
  starts[keys.length] = at + 1;
  return { text: keys.map((k) => `\n${k}`).join(''), starts };
}

/** The entry whose key holds position `pos` of the haystack's text. */
function entryAt(hay: Haystack, pos: number): number {
  let lo = 0;
  let hi = hay.starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((hay.starts[mid] as number) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface SearchQuery {
  q: string;
  market?: Market | undefined;
  limit: number;
}

const EXACT_CODE = 0;
const EXACT_NAME = 1;
const PREFIX = 2;
const CONTAINS = 3;
const NONE = 4;
const KINDS: readonly MatchKind[] = ['exact', 'exact', 'prefix', 'contains'];
const FIELDS: readonly MatchField[] = ['code', 'name', 'nameEn', 'initials'];

/**
 * The matches of a query, best first, and how many there are in all. Tiers: the exact code or
 * ticker; then a name (Korean, English, or the Korean initials) equal to the query; then a
 * name, initials or code that starts with it; then one that contains it. Within a tier, the
 * index's order: market cap descending (US at the snapshot's USD/KRW), then KR before US,
 * then code. A stock appears once, in its best tier.
 */
export function searchStocks(index: SearchIndex, query: SearchQuery): { matches: SearchMatch[]; totalCount: number } {
  const key = searchKey(query.q);
  const n = index.entries.length;
  const tier = new Uint8Array(n).fill(NONE);
  const field = new Uint8Array(n);
  const note = (i: number, t: number, f: number): void => {
    if (t < (tier[i] as number)) {
      tier[i] = t;
      field[i] = f;
    }
  };
  // Each hit of `needle` in a field; `accept` may refuse one (initials: the syllables must agree too).
  const scan = (hay: Haystack, needle: string, f: number, exactTier: number, accept?: (pos: number) => boolean): void => {
    if (needle === '') return;
    for (let pos = hay.text.indexOf(needle); pos >= 0; pos = hay.text.indexOf(needle, pos + 1)) {
      if (accept && !accept(pos)) continue;
      const i = entryAt(hay, pos);
      const start = hay.starts[i] as number;
      const end = (hay.starts[i + 1] as number) - 1;
      note(i, pos > start ? CONTAINS : end - start === needle.length ? exactTier : PREFIX, f);
      // A later hit in the same key is only another `contains`: go on at the next key.
      pos = end - 1;
    }
  };
  if (key !== '') {
    if ([...key].some((c) => isInitial(c.codePointAt(0) as number))) {
      // Lone initials: a hit of the query's initials in a name's initials counts where the
      // query's other characters are the name's own there (삼ㅅ: 삼 itself, then any ㅅ
      // syllable). The two haystacks line up character for character.
      const accept = (pos: number): boolean => {
        for (let j = 0; j < key.length; j++) {
          const c = key.charCodeAt(j);
          if (!isInitial(c) && index.name.text.charCodeAt(pos + j) !== c) return false;
        }
        return true;
      };
      scan(index.initials, initialsOf(key), 3, EXACT_NAME, accept);
    } else {
      scan(index.code, key, 0, PREFIX);
      scan(index.name, key, 1, EXACT_NAME);
      scan(index.nameEn, key, 2, EXACT_NAME);
      // An exact code or ticker outranks everything: one lookup among the code hits.
      const codeHit = index.code.text.indexOf(`\n${key}\n`);
      const lastHit = index.code.text.endsWith(`\n${key}`) ? index.code.text.length - key.length : -1;
      const exact = codeHit >= 0 ? codeHit + 1 : lastHit;
      if (exact >= 0) note(entryAt(index.code, exact), EXACT_CODE, 0);
    }
  }
  const tiers: SearchMatch[][] = [[], [], [], []];
  let totalCount = 0;
  for (let i = 0; i < n; i++) {
    const t = tier[i] as number;
    if (t === NONE) continue;
    const entry = index.entries[i] as SearchEntry;
    if (query.market !== undefined && entry.market !== query.market) continue;
    totalCount++;
    const list = tiers[t] as SearchMatch[];
    if (list.length < query.limit) list.push({ entry, kind: KINDS[t] as MatchKind, field: FIELDS[field[i] as number] as MatchField });
  }
  return { matches: tiers.flat().slice(0, query.limit), totalCount };
}
