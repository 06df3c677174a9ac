// OAUTH and PUBLIC_URL as configuration: what starts, and what is refused with which message.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../src/oauth/metadata.js';

describe('OAuth configuration', () => {
  it('is off by default, with no public origin', () => {
    const c = loadConfig({});
    assert.equal(c.OAUTH, 'off');
    assert.equal(c.publicOrigin, null);
    assert.deepEqual(c.publicOrigins, []);
  });

  it('takes one or several public origins; the first is the issuer; a default port and a trailing slash are dropped', () => {
    const c = loadConfig({ OAUTH: 'on', PUBLIC_URL: 'https://a.example:443/, http://b.example:8080' });
    assert.deepEqual(c.publicOrigins, ['https://a.example', 'http://b.example:8080']);
    assert.equal(c.publicOrigin, 'https://a.example');
  });

  it('refuses OAUTH=on without PUBLIC_URL, and a PUBLIC_URL that is not an http(s) origin', () => {
    assert.throws(() => loadConfig({ OAUTH: 'on' }), { message: 'invalid configuration: PUBLIC_URL: required with OAUTH=on (the issuer and resource origin)' });
    assert.throws(() => loadConfig({ PUBLIC_URL: 'https://a.example/mcp' }), { message: 'invalid configuration: PUBLIC_URL: PUBLIC_URL must be an origin (scheme, host and port only)' });
    assert.throws(() => loadConfig({ PUBLIC_URL: 'ftp://a.example' }), { message: 'invalid configuration: PUBLIC_URL: PUBLIC_URL must be an http(s) URL' });
    assert.throws(() => loadConfig({ PUBLIC_URL: 'a.example' }), { message: 'invalid configuration: PUBLIC_URL: not a URL' });
  });

  it('builds the discovery documents from the origin', () => {
    assert.deepEqual(protectedResourceMetadata('https://a.example', true), {
      resource: 'https://a.example/api/mcp',
      authorization_servers: ['https://a.example'],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'KR/US stock data (MCP, read-only)',
      resource_documentation: 'https://a.example/docs',
    });
    const as = authorizationServerMetadata('https://a.example');
    assert.equal(as.authorization_endpoint, 'https://a.example/oauth/authorize');
    assert.equal(as.registration_endpoint, 'https://a.example/oauth/register');
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
  });
});
