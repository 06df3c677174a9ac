// The start banner's pure parts: which bind counts as loopback, when the dashboard link signs
// in (the demo, on loopback, with a key created at this start: never otherwise), how the key is
// named, the listen failures' one-line hints; and the 404's wording per served data.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardUrl, doorsBanner, keyBanner, listenFailureHint, NO_KEY_BANNER, signInBanner } from '../../src/cli/banner.js';
import { isLoopbackHost as isLoopback } from '../../src/http/loopback.js';
import { notFoundDetail } from '../../src/serving/served.js';

const URL = 'http://127.0.0.1:8080';
const KEY = 'sk_live_abcdefgh_0123456789';

describe('start banner', () => {
  it('loopback: 127.0.0.0/8, ::1 and localhost; nothing else', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) assert.equal(isLoopback(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '127.example.com', '1270.0.0.1', '127.0.0.256']) assert.equal(isLoopback(host), false, host);
  });

  it('the dashboard link carries the key only for the demo on loopback with a key created now', () => {
    assert.equal(dashboardUrl({ url: URL, host: '127.0.0.1', demo: true, createdKey: KEY }), `${URL}/#key=${KEY}`);
    assert.equal(dashboardUrl({ url: URL, host: '127.0.0.1', demo: true, createdKey: null }), `${URL}/`, 'a later start: no key to give');
    assert.equal(dashboardUrl({ url: 'http://0.0.0.0:8080', host: '0.0.0.0', demo: true, createdKey: KEY }), 'http://0.0.0.0:8080/', 'every interface');
    assert.equal(dashboardUrl({ url: 'http://192.168.1.10:8080', host: '192.168.1.10', demo: true, createdKey: KEY }), 'http://192.168.1.10:8080/');
    assert.equal(dashboardUrl({ url: URL, host: '127.0.0.1', demo: false, createdKey: KEY }), `${URL}/`, 'real sources');
  });

  it('names every door, with no key in it (stdout); the signed-in dashboard link only on stderr, for the demo key on loopback', () => {
    assert.equal(signInBanner({ url: URL, host: '127.0.0.1', demo: true, createdKey: KEY }), `Dashboard signed in with the demo key: ${URL}/#key=${KEY}\n`);
    assert.equal(signInBanner({ url: URL, host: '127.0.0.1', demo: true, createdKey: null }), null);
    assert.equal(signInBanner({ url: URL, host: '0.0.0.0', demo: true, createdKey: KEY }), null);
    assert.equal(
      doorsBanner({ url: URL }),
      [
        `Listening on ${URL}`,
        `  Dashboard  ${URL}/  (asks once for an API key; the browser keeps it)`,
        `  REST API   ${URL}/api/public/v2  (OpenAPI: ${URL}/api/public/v2/openapi.json)`,
        `  MCP        POST ${URL}/api/mcp`,
        `  Docs       ${URL}/docs`,
        '',
      ].join('\n'),
    );
  });

  it('names the demo key for what it is; with no key, says how to create one', () => {
    assert.equal(keyBanner(KEY), `\nDemo API key (free plan, for the demo universe; shown once; create more with: npm run cli -- keys create --plan free):\n${KEY}\n\n`);
    assert.equal(NO_KEY_BANNER, 'No active API key: create one with: npm run cli -- keys create --plan free|paid [--name N]\n');
  });

  it('a taken port, a privileged one, a foreign address: one line each; anything else is not a listen failure', () => {
    const err = (code: string) => Object.assign(new Error('listen'), { code });
    assert.equal(listenFailureHint(err('EADDRINUSE'), '127.0.0.1', 8080), 'Port 8080 on 127.0.0.1 is already in use (another copy of the service?). Stop it, or start on another port: PORT=8081 npm start');
    assert.equal(listenFailureHint(err('EADDRINUSE'), '127.0.0.1', 9000), 'Port 9000 on 127.0.0.1 is already in use (another copy of the service?). Stop it, or start on another port: PORT=9001 npm start');
    assert.match(listenFailureHint(err('EACCES'), '0.0.0.0', 80) ?? '', /^Not allowed to listen on 0\.0\.0\.0:80 /);
    assert.match(listenFailureHint(err('EADDRNOTAVAIL'), '10.9.9.9', 8080) ?? '', /^10\.9\.9\.9 is not an address of this machine/);
    assert.equal(listenFailureHint(err('ENOENT'), '127.0.0.1', 8080), null);
    assert.equal(listenFailureHint(null, '127.0.0.1', 8080), null);
  });
});

describe('a code with no stock: why, in terms of the data served', () => {
  it('demo: the universe is invented; real: the served stocks and US coverage (foreign filers included); never the coverage hint for the demo', () => {
    assert.equal(notFoundDetail('US', 'AAPL', 'demo'), 'no US stock has the ticker AAPL: the demo universe is invented (its companies and codes are not real ones); find one by name with search_stocks (GET /stocks?q=)');
    assert.equal(notFoundDetail('KR', '005930', 'demo'), 'no KR stock has the code 005930: the demo universe is invented (its companies and codes are not real ones); find one by name with search_stocks (GET /stocks?q=)');
    assert.equal(notFoundDetail('KR', '005930', 'opendart,fsc'), 'no KR stock has the code 005930 among the served stocks; find one by name with search_stocks (GET /stocks?q=)');
    assert.equal(
      notFoundDetail('US', 'ZZZZ', 'sec,polygon'),
      'no US stock has the ticker ZZZZ among the served stocks (covered: companies filing 10-K/10-Q or 20-F/40-F with the SEC); find one by name with search_stocks (GET /stocks?q=)',
    );
  });
});
