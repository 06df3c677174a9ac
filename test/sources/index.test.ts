import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configuredSources, sourceNotices } from '../../src/sources/index.js';

describe('configuredSources', () => {
  it('is empty without keys, so the pipeline can fall back to the demo source', () => {
    assert.deepEqual(configuredSources({}), []);
  });

  it('returns the adapters whose keys are present', () => {
    const names = (env: Record<string, string>): string[] => configuredSources(env).map((s) => s.name);
    assert.deepEqual(names({ DATA_GO_KR_API_KEY: 'k' }), ['fsc', 'customs']);
    assert.deepEqual(names({ US_PRICES_API_KEY: 'k' }), []); // needs SEC_USER_AGENT for shares
    assert.deepEqual(names({ KIS_APP_KEY: 'k' }), []); // needs KIS_APP_SECRET too
    assert.deepEqual(names({ DATA_GO_KR_API_KEY: 'k', KIS_APP_KEY: 'k', KIS_APP_SECRET: 's' }), ['fsc', 'kis', 'customs']);
    assert.deepEqual(
      names({ DART_API_KEY: 'k', DATA_GO_KR_API_KEY: 'k', KRX_COOKIE: 'c', KRX_MARKETPLACE_ACCEPT_TERMS: 'yes', SEC_USER_AGENT: 'A a@b.c', US_PRICES_API_KEY: 'k', ECOS_API_KEY: 'k' }),
      ['opendart', 'fsc', 'krx', 'ecb', 'sec', 'polygon', 'customs', 'ecos'],
    );
  });

  it('keeps the KRX marketplace off without the acknowledgement of its terms, and says so in one line', () => {
    const names = (env: Record<string, string>): string[] => configuredSources(env).map((s) => s.name);
    const unacknowledged: Record<string, string>[] = [{ KRX_ID: 'member', KRX_PASSWORD: 'pw' }, { KRX_COOKIE: 'c' }, { KRX_ENABLED: '1' }, { KRX_COOKIE: 'c', KRX_MARKETPLACE_ACCEPT_TERMS: 'no' }];
    for (const env of unacknowledged) {
      assert.deepEqual(names(env), []);
      const notices = sourceNotices(env);
      assert.equal(notices.length, 1);
      assert.match(notices[0] as string, /^krx: the KRX Data Marketplace is configured but off: set KRX_MARKETPLACE_ACCEPT_TERMS=yes/);
    }
    assert.deepEqual(names({ KRX_COOKIE: 'c', KRX_MARKETPLACE_ACCEPT_TERMS: 'yes' }), ['krx']);
    assert.deepEqual(sourceNotices({ KRX_COOKIE: 'c', KRX_MARKETPLACE_ACCEPT_TERMS: 'YES' }), []);
    // Not configured at all: nothing to say.
    assert.deepEqual(sourceNotices({}), []);
  });
});
