// Dated listings (docs/calculations.md, "Names, sectors and exchanges as of the day"): a company's
// name, sector and exchange over time, as versions each valid from its day until the next one's.
// Pure: the store keeps the versions (src/store/market-securities.ts) and applies these to them.
//
// The versions of a company are kept canonical: ordered by day, at most one a day, and none equal
// to the one before it, so the same knowledge always makes the same versions whatever order it
// arrived in.

/** The sector a source reports when it does not know one. */
export const UNCLASSIFIED = 'Unclassified';

/** The day a version without a day of its own counts from: before any day asked about. */
export const EARLIEST_DAY = '0000-01-01';

/** What a listing version says of a company. */
export interface Listing {
  name: string;
  sector: string;
  exchange: string;
}

export interface ListingVersion extends Listing {
  /** The first day it holds, `YYYY-MM-DD`; it holds until the next version's day. */
  validFrom: string;
}

export function sameListing(a: Listing, b: Listing): boolean {
  return a.name === b.name && a.sector === b.sector && a.exchange === b.exchange;
}

/**
 * The version valid on `day`: the latest whose day is on or before it. Before the first version,
 * the first: what the store knows of a company starts there. Undefined without versions.
 */
export function versionOn<T extends { validFrom: string }>(versions: readonly T[], day: string): T | undefined {
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((versions[mid] as T).validFrom <= day) lo = mid + 1;
    else hi = mid;
  }
  return versions[lo === 0 ? 0 : lo - 1];
}

/** `versions` without any version equal to the one before it (its day adds nothing). */
function canonical(versions: readonly ListingVersion[]): ListingVersion[] {
  const out: ListingVersion[] = [];
  for (const v of versions) {
    const prev = out[out.length - 1];
    if (prev === undefined || !sameListing(prev, v)) out.push(v);
  }
  return out;
}

/** `versions` with `version` in its day's place (replacing one of the same day), canonical. */
function placed(versions: readonly ListingVersion[], version: ListingVersion): ListingVersion[] {
  const out = versions.filter((v) => v.validFrom !== version.validFrom);
  let at = out.findIndex((v) => v.validFrom > version.validFrom);
  if (at < 0) at = out.length;
  out.splice(at, 0, version);
  return canonical(out);
}

/**
 * The versions after a write says `listing` of the company on `day` (null: a write without a day,
 * which corrects the latest version in place). A listing equal to the one valid on `day` changes
 * nothing; another adds a version from `day`. A sector of `UNCLASSIFIED` (a source that does not
 * know it) keeps the sector valid then; a known sector where the store knew none fills every
 * version that knew none (the company did not change sector: the store learned it).
 */
export function withListing(versions: readonly ListingVersion[], day: string | null, listing: Listing): readonly ListingVersion[] {
  if (versions.length === 0) return [{ validFrom: day ?? EARLIEST_DAY, name: listing.name, sector: listing.sector, exchange: listing.exchange }];
  const learned = listing.sector !== UNCLASSIFIED && versions.some((v) => v.sector === UNCLASSIFIED);
  const known = learned ? versions.map((v) => (v.sector === UNCLASSIFIED ? { ...v, sector: listing.sector } : v)) : versions;
  const latest = known[known.length - 1] as ListingVersion;
  const validFrom = day ?? latest.validFrom;
  const valid = versionOn(known, validFrom) as ListingVersion;
  const version: ListingVersion = { validFrom, name: listing.name, sector: listing.sector === UNCLASSIFIED ? valid.sector : listing.sector, exchange: listing.exchange };
  // On or after the first version, one equal to the version of the day adds nothing; before the
  // first, it moves the first back to that day (placed, then the first dropped as a repeat).
  // `versions` itself where nothing changes: the writer skips it without comparing.
  if (validFrom >= (known[0] as ListingVersion).validFrom && sameListing(valid, version)) return learned ? canonical(known) : (versions as ListingVersion[]);
  return placed(known, version);
}

/**
 * The versions after a source dates a former name: the company was `name` from `from` until
 * `until` (exclusive). Every version in that span takes the name; the span's first day starts a
 * version (the sector and exchange of that day), and `until` one with what held there before
 * (unless a version starts there already). Without versions (a company the store does not hold)
 * or with an empty span, nothing changes.
 */
export function withFormerName(versions: readonly ListingVersion[], name: string, from: string, until: string): ListingVersion[] {
  if (versions.length === 0 || !(from < until)) return [...versions];
  const atFrom = versionOn(versions, from) as ListingVersion;
  const atUntil = versionOn(versions, until) as ListingVersion;
  const out: ListingVersion[] = versions.filter((v) => v.validFrom < from);
  out.push({ validFrom: from, name, sector: atFrom.sector, exchange: atFrom.exchange });
  for (const v of versions) if (v.validFrom > from && v.validFrom < until) out.push({ ...v, name });
  if (!versions.some((v) => v.validFrom === until)) out.push({ validFrom: until, name: atUntil.name, sector: atUntil.sector, exchange: atUntil.exchange });
  for (const v of versions) if (v.validFrom >= until) out.push(v);
  return canonical(out);
}

/**
 * A source's dated former names of one company as consecutive spans: each name from its `from`
 * until the next one's `from`, the latest until its own `to` (where the current name takes over).
 * A name whose span is empty (`to` not after `from`: EDGAR records a few such) is left out, and
 * so is a date that is not `YYYY-MM-DD...`.
 */
export function formerNameSpans(names: readonly { name: string; from: string; to: string }[]): { name: string; from: string; until: string }[] {
  const day = /^\d{4}-\d{2}-\d{2}/;
  const kept = names
    .filter((n) => n.name !== '' && day.test(n.from) && day.test(n.to) && n.from.slice(0, 10) < n.to.slice(0, 10))
    .map((n) => ({ name: n.name, from: n.from.slice(0, 10), to: n.to.slice(0, 10) }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const spans: { name: string; from: string; until: string }[] = [];
  kept.forEach((n, i) => {
    const next = kept[i + 1];
    // Two names of the same first day: the later in the list stands for that day.
    if (next !== undefined && next.from === n.from) return;
    spans.push({ name: n.name, from: n.from, until: next !== undefined ? next.from : n.to });
  });
  return spans;
}

/**
 * `security` as listed on `day`: its name, sector and exchange those of its version valid then
 * (`versionOn`); the same object where they are today's, or where it has no versions.
 */
export function listedAs<T extends Listing>(security: T, versions: readonly ListingVersion[] | undefined, day: string): T {
  const v = versions === undefined ? undefined : versionOn(versions, day);
  return v === undefined || sameListing(v, security) ? security : { ...security, name: v.name, sector: v.sector, exchange: v.exchange };
}
