// The parts of client-document fetching and redirect matching that need no server: which
// addresses count as public unicast (every IPv6 form that carries an IPv4 address unwrapped),
// a name with any non-public answer refused, the connection pinned to the address checked (a
// name resolved once), the cache lifetime read from Cache-Control, and
// loopback redirect URIs matched with any port (RFC 8252 section 7.3).

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { documentLifetimeSeconds, matchRedirectUri } from '../../src/oauth/clients.js';
import { checkedAddress, FetchRefused, fetchPinned, publicUnicast } from '../../src/oauth/outbound.js';

describe('OAuth outbound: address classes', () => {
  it('refuses every address that is not public unicast, including IPv6 forms that carry one', () => {
    const refused = [
      // The IPv4 special ranges: loopback, private, link-local (the metadata service), CGNAT,
      // unspecified, benchmarking 198.18/15, documentation, multicast, 240/4, broadcast.
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '198.18.0.1', '198.19.255.255', '192.0.2.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
      // IPv6: unspecified, loopback, link-local, unique-local, multicast, documentation.
      '::', '::1', '[::1]', 'fe80::1', 'fd00::1', 'ff02::1', '2001:db8::1',
      // IPv4-compatible ::7f00:1 = 127.0.0.1; IPv4-mapped; IPv4-translated (RFC 6145).
      '::7f00:1', '[::7f00:1]', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '::ffff:0:a9fe:a9fe',
      // NAT64 64:ff9b::/96 of 169.254.169.254 (a9fe:a9fe) and of 198.18.0.1 (c612:1); the local-use 64:ff9b:1::/48.
      '64:ff9b::a9fe:a9fe', '64:ff9b::c612:1', '64:ff9b:1::808:808',
      // 6to4 2002:AABB:CCDD:: of 169.254.169.254 and of 10.0.0.1.
      '2002:a9fe:a9fe::', '2002:a00:1::1',
      // Teredo: the client address is the last 32 bits inverted: 5601:5601 ^ ffff:ffff = a9fe:a9fe.
      '2001:0:4136:e378:8000:63bf:5601:5601',
      // Not addresses at all.
      'example.com', '', '1.2.3.4.5', '::g',
    ];
    for (const a of refused) assert.equal(publicUnicast(a), false, a);
    // Public: 8.8.8.8 and 1.1.1.1, an IPv6 unicast, and the embedded forms of 8.8.8.8
    // (mapped, NAT64 0808:0808, 6to4, Teredo f7f7:f7f7 ^ ffff:ffff = 0808:0808).
    const accepted = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'];
    for (const a of accepted) assert.equal(publicUnicast(a), true, a);
  });

  it('refuses a name when any of its answers is not public, and answers the first checked address', async () => {
    const resolver = (answers: { address: string; family: number }[]) => async () => answers;
    await assert.rejects(checkedAddress('docs.example', { resolver: resolver([{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.1', family: 4 }]) }), (e: unknown) => e instanceof FetchRefused && e.reason === 'internal_address');
    await assert.rejects(checkedAddress('docs.example', { resolver: resolver([]) }), (e: unknown) => e instanceof FetchRefused && e.reason === 'unresolvable');
    await assert.rejects(checkedAddress('docs.example', { resolver: async () => Promise.reject(new Error('ENOTFOUND')) }), (e: unknown) => e instanceof FetchRefused && e.reason === 'unresolvable');
    assert.deepEqual(await checkedAddress('docs.example', { resolver: resolver([{ address: '2606:4700:4700::1111', family: 6 }, { address: '1.1.1.1', family: 4 }]) }), { address: '2606:4700:4700::1111', family: 6 });
    // An IP literal is checked as it is, with no resolution.
    let asked = 0;
    const counting = async () => (asked++, [{ address: '8.8.8.8', family: 4 }]);
    await assert.rejects(checkedAddress('[::7f00:1]', { resolver: counting }), (e: unknown) => e instanceof FetchRefused && e.reason === 'internal_address');
    assert.deepEqual(await checkedAddress('1.1.1.1', { resolver: counting }), { address: '1.1.1.1', family: 4 });
    assert.equal(asked, 0);
  });
});

describe('OAuth outbound: the connection goes to the checked address', () => {
  it('resolves a name once and connects to that answer: a rebinding second answer is never asked for', async () => {
    const server = createServer((req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ host: req.headers.host })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // The first answer is the loopback server (permitted here as the tests' seam permits it);
      // a second would be 10.0.0.1 (refused). `rebind.invalid` has no DNS entry, so a second
      // resolution by the connection itself would fail with ENOTFOUND.
      const answers = ['127.0.0.1', '10.0.0.1'];
      let asked = 0;
      const resolver = async () => [{ address: answers[asked++]!, family: 4 }];
      const permit = (a: string) => a === '127.0.0.1';
      const res = await fetchPinned(new URL(`http://rebind.invalid:${port}/client.json`), { maxBytes: 1024, deadlineMs: 2_000 }, {}, { resolver, permit });
      assert.equal(res.status, 200);
      // The Host header still names the URL's host (and TLS would verify that name).
      assert.deepEqual(JSON.parse(res.body.toString('utf8')), { host: `rebind.invalid:${port}` });
      assert.equal(asked, 1);
      // The next fetch's answer (10.0.0.1) is refused before any connection.
      await assert.rejects(fetchPinned(new URL(`http://rebind.invalid:${port}/client.json`), { maxBytes: 1024, deadlineMs: 2_000 }, {}, { resolver, permit }), (e: unknown) => e instanceof FetchRefused && e.reason === 'internal_address');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('OAuth clients: document lifetime and redirect matching', () => {
  it('keeps a document for its max-age, between 60 s and 24 h; 1 h without one', () => {
    assert.equal(documentLifetimeSeconds(undefined), 3_600);
    assert.equal(documentLifetimeSeconds('public, max-age=7200'), 7_200);
    assert.equal(documentLifetimeSeconds('max-age=5'), 60);
    assert.equal(documentLifetimeSeconds('max-age=31536000'), 86_400);
    assert.equal(documentLifetimeSeconds('no-store'), 60);
    assert.equal(documentLifetimeSeconds('max-age=abc'), 3_600);
  });

  it('matches loopback http redirect URIs with any port, everything else exactly', () => {
    const registered = ['http://127.0.0.1/callback', 'http://[::1]:8080/cb', 'http://localhost:3000/callback?x=1', 'https://app.example/cb'];
    assert.equal(matchRedirectUri(registered, 'http://127.0.0.1:53124/callback'), 'http://127.0.0.1:53124/callback');
    assert.equal(matchRedirectUri(registered, 'http://[::1]:1/cb'), 'http://[::1]:1/cb');
    assert.equal(matchRedirectUri(registered, 'http://localhost:49152/callback?x=1'), 'http://localhost:49152/callback?x=1');
    assert.equal(matchRedirectUri(registered, 'https://app.example/cb'), 'https://app.example/cb');
    for (const other of [
      'http://127.0.0.1:53124/other', // another path
      'http://localhost:3000/callback', // the query differs
      'http://127.0.0.2:53124/callback', // another host
      'http://localhost:53124/cb', // the registered [::1] path on another loopback host
      'https://app.example:8443/cb', // a port of a non-loopback host
      'https://127.0.0.1:53124/callback', // another scheme
      'http://user@127.0.0.1:53124/callback',
      'not a url',
    ]) assert.equal(matchRedirectUri(registered, other), null, other);
  });
});
