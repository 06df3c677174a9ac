// The real upstream adapters and the one place that decides which are configured.
// With no key in the environment the list is empty and the refresh pipeline falls back to
// the demo source.

import type { Source } from './source.js';
import { CustomsSource } from './customs/source.js';
import { EcbSource } from './ecb/source.js';
import { EcosSource } from './ecos/source.js';
import { FscSource } from './fsc/source.js';
import { KisSource } from './kis/source.js';
import { KrxSource, krxUnacknowledged } from './krx/source.js';
import { KrxOpenApiSource } from './krxapi/source.js';
import { OpenDartSource } from './opendart/source.js';
import { PolygonSource } from './polygon/source.js';
import { SecSource } from './sec/source.js';

export { CustomsSource, EcbSource, EcosSource, FscSource, KisSource, KrxOpenApiSource, KrxSource, OpenDartSource, PolygonSource, SecSource };
export { KRX_TERMS_VARIABLE, krxTermsAccepted } from './krx/source.js';
export { HttpClient, RateLimiter, SourceHttpError, redact } from './http.js';

type Env = Record<string, string | undefined>;

/** Adapters whose credentials (or enabling variable) are present in `env`, in a stable order. */
export function configuredSources(env: Env): Source[] {
  const candidates: (Source | null)[] = [
    OpenDartSource.fromEnv(env),
    FscSource.fromEnv(env),
    KrxOpenApiSource.fromEnv(env),
    KrxSource.fromEnv(env),
    // After FSC: it asks the listed KR stocks FSC's prices place.
    KisSource.fromEnv(env),
    // Before SEC: its foreign filers without a USD translation are converted at the rates it stores.
    EcbSource.fromEnv(env),
    SecSource.fromEnv(env),
    PolygonSource.fromEnv(env),
    CustomsSource.fromEnv(env),
    EcosSource.fromEnv(env),
  ];
  return candidates.filter((s): s is Source => s !== null);
}

/**
 * Lines to say at start about sources that are configured but off (the KRX marketplace without
 * the acknowledgement of its terms): one line each, never a silent omission.
 */
export function sourceNotices(env: Env): string[] {
  return [krxUnacknowledged(env)].filter((line): line is string => line !== null);
}
