// MCP resource templates and completions through the official clients of both protocol eras,
// against the real service on a loopback port (small demo universe, fixed clock): every template
// read answers what its tool answers, a stock template's read is metered as a call of its tool
// while completions and the sector list are not, and completions of `code`, `sector` and `market`
// (templates' variables and prompts' arguments) return the demo's stocks as search_stocks ranks
// them.
//
// The demo names the expectations are derived from (src/sources/demo/universe.ts, the small test
// universe, as the served dataset lists them):
//   설강테라퓨틱스 186000 Seolgang Therapeutics, 설명오토시스템 221070 Seolmyeong Auto Systems,
//   설연철강 226830 Seolyeon Steel, 설해옵트로닉스 404630 Seolhae Optronics: the only names that
//   start with 설 / Seol (and none contains them further in);
//   신산시스템즈 203200 (initials ㅅㅅㅅㅅㅈ) starts with ㅅㅅ; 옥산실리콘 107060 (ㅇㅅㅅㄹㅋ) and
//   설명오토시스템 221070 (ㅅㅁㅇㅌㅅㅅㅌ) contain it; no other name's initials hold ㅅㅅ;
//   GAL (Galfield Interactive Entertainment) is the exact ticker "gal"; GALM (Galmore Utilities)
//   and GALV (Galvale Systems) start with it; no other code or name contains it;
//   KR sectors holding a "b": Biotech (prefix), then Automobiles and Food & Beverage.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTemplates } from '../../src/http/mcp-templates.js';
import { TOOLS } from '../../src/tools/registry.js';
import { sdkV1, sdkV2, type CompleteParams, type Json, type McpClientDriver } from '../support/mcp-clients.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SEOL = ['186000', '221070', '226830', '404630'];

const codeRef = { type: 'ref/resource', uri: 'stock://{market}/{code}/snapshot' } as const;
const sectorRef = { type: 'ref/resource', uri: 'sectors://{market}/{sector}' } as const;

interface Completion {
  values: string[];
  total?: number;
  hasMore: boolean;
}

async function complete(client: McpClientDriver, params: CompleteParams): Promise<Completion> {
  return ((await client.complete!(params)) as { completion: Completion }).completion;
}

describe('MCP resource templates and completions, in both protocol eras', () => {
  let t: TestServer;
  let endpoint: string;

  before(async () => {
    t = await startTestServer();
    endpoint = `${t.url}/api/mcp`;
  });
  after(() => t.close());

  const clients: [string, (key: string) => Promise<McpClientDriver>][] = [
    ['SDK v1 client, 2025-11-25', (key) => sdkV1(endpoint, key, '2025-11-25')],
    ['SDK v2 client, 2026-07-28', (key) => sdkV2(endpoint, key, '2026-07-28')],
    ['SDK v2 client, 2025-06-18', (key) => sdkV2(endpoint, key, '2025-06-18')],
  ];

  for (const [label, open] of clients) {
    describe(label, () => {
      let client: McpClientDriver;
      before(async () => {
        client = await open(await t.newKey('paid'));
      });
      after(() => client.close());

      it('lists a template per per-stock tool, the sector list and a sector screen', async () => {
        const listed = ((await client.listResourceTemplates()).resourceTemplates as { name: string; uriTemplate: string; mimeType: string }[]).map((r) => [r.name, r.uriTemplate, r.mimeType]);
        // The per-stock tools in the registry's order: score, snapshot, valuation band, sector percentile, price history.
        assert.deepEqual(listed, [
          ['stock-score', 'stock://{market}/{code}/score', 'application/json'],
          ['stock-snapshot', 'stock://{market}/{code}/snapshot', 'application/json'],
          ['stock-valuation-band', 'stock://{market}/{code}/valuation-band', 'application/json'],
          ['stock-sector-percentile', 'stock://{market}/{code}/sector-percentile', 'application/json'],
          ['stock-price-history', 'stock://{market}/{code}/price-history', 'application/json'],
          ['sectors-of-market', 'sectors://{market}', 'application/json'],
          ['sector-screen', 'sectors://{market}/{sector}', 'application/json'],
        ]);
        assert.deepEqual(
          listed.map((l) => l[1]),
          buildTemplates(TOOLS).map((x) => x.uriTemplate),
        );
      });

      it('a stock template reads as its tool answers at its default arguments, metered as that call; the sector list and completions are not', async () => {
        const callsToday = async () => ((await client.callTool('health', {})).structuredContent as { callsToday: number }).callsToday;
        const before = await callsToday();
        const read = async (uri: string) => {
          const result = (await client.readResource(uri)) as { contents: { uri: string; mimeType: string; text: string }[] };
          assert.deepEqual([result.contents.length, result.contents[0]!.uri, result.contents[0]!.mimeType], [1, uri, 'application/json'], uri);
          return JSON.parse(result.contents[0]!.text) as Json;
        };
        const snapshot = await read('stock://KR/186000/snapshot');
        await complete(client, { ref: codeRef, argument: { name: 'code', value: '설' } });
        await complete(client, { ref: sectorRef, argument: { name: 'sector', value: 'b' } });
        const sectors = await read('sectors://KR');
        // health (1) + the snapshot read (1) + health again (1): the completions and the sector list are free.
        assert.equal(await callsToday(), before + 2);

        assert.deepEqual(snapshot, (await client.callTool('get_stock_snapshot', { code: '186000' })).structuredContent);
        const all = JSON.parse(((await client.readResource('stock-data://sectors')) as { contents: { text: string }[] }).contents[0]!.text) as { markets: { KR: unknown[] }; updatedAt: string; source: string };
        assert.deepEqual(sectors, { market: 'KR', sectors: all.markets.KR, updatedAt: all.updatedAt, source: all.source });

        for (const { tool, answer } of [
          { tool: 'get_stock_score', answer: 'score' },
          { tool: 'get_valuation_band', answer: 'valuation-band' },
          { tool: 'get_sector_percentile', answer: 'sector-percentile' },
          { tool: 'get_price_history', answer: 'price-history' },
        ]) {
          for (const [market, code] of [
            ['KR', '221070'],
            ['US', 'LOR.B'],
          ] as const) {
            assert.deepEqual(await read(`stock://${market}/${code}/${answer}`), (await client.callTool(tool, { code })).structuredContent, `${tool} ${code}`);
          }
        }
        // The 2026-07-28 revision's cache hints on a read (the ttl runs to the next refresh: the test
        // server has none scheduled, so 0; test/http/mcp-server.test.ts has one); none in 2025, none on a completion.
        const raw = await client.readResource('stock://KR/186000/score');
        const completion = await client.complete!({ ref: codeRef, argument: { name: 'code', value: '설' } });
        const modern = label.includes('2026-07-28');
        assert.deepEqual([raw.ttlMs, raw.cacheScope], modern ? [0, 'public'] : [undefined, undefined]);
        assert.deepEqual([completion.ttlMs, completion.cacheScope], [undefined, undefined]);
        // A sector with a space and an ampersand, percent-encoded as a client expands the template.
        assert.deepEqual(await read('sectors://US/Media%20%26%20Entertainment'), (await client.callTool('screen_stocks', { market: 'US', sectors: ['Media & Entertainment'] })).structuredContent);
        assert.deepEqual(await read(`sectors://KR/${encodeURIComponent('반도체')}`), (await client.callTool('screen_stocks', { market: 'KR', sectors: ['Semiconductors'] })).structuredContent);
      });

      it('a read of a stock or sector nobody lists, or in the wrong market, is not found; a market other than KR or US is a bad parameter', async () => {
        const failure = async (uri: string) => {
          try {
            await client.readResource(uri);
          } catch (err) {
            return { code: (err as { code?: number }).code, message: (err as Error).message };
          }
          assert.fail(`${uri} was read`);
        };
        // The SDK answers an unknown resource with -32602 and the URI in its data, in every era (the
        // 2026-07-28 revision's code; the 2025 revisions' clients accept it with the URI).
        const notFound = -32602;
        for (const [uri, message] of [
          ['stock://US/186000/snapshot', '186000 is not a US code'],
          ['stock://KR/999999/score', 'no KR stock has the code 999999'],
          ['sectors://KR/Yachts', 'no sector "Yachts" in KR (see sectors://KR)'],
        ] as const) {
          const error = await failure(uri);
          assert.equal(error.code, notFound, uri);
          assert.match(error.message, new RegExp(`Resource not found: ${message.replace(/[()]/g, '\\$&')}`), uri);
        }
        const market = await failure('stock://JP/186000/score');
        assert.deepEqual([market.code, /market "JP" is not KR or US/.test(market.message)], [-32602, true]);
        const code = await failure('stock://KR/12%2B4/score');
        assert.deepEqual([code.code, /parameter 'code'/.test(code.message)], [-32602, true]);
      });

      it('completes a code by Korean prefix, Korean initials, English prefix and code prefix, as search_stocks ranks them', async () => {
        const searched = async (q: string, market?: string) => {
          const body = (await client.callTool('search_stocks', { q, limit: 50, ...(market === undefined ? {} : { market }) })).structuredContent as { matches: { code: string }[]; totalCount: number };
          return { values: body.matches.map((m) => m.code), total: body.totalCount, hasMore: false };
        };
        for (const q of ['설', 'ㅅㅅ', 'seol', 'Gal', '42', 'se']) {
          assert.deepEqual(await complete(client, { ref: codeRef, argument: { name: 'code', value: q } }), await searched(q), q);
        }
        const seol = await complete(client, { ref: codeRef, argument: { name: 'code', value: '설' } });
        assert.deepEqual([...seol.values].sort(), SEOL);
        assert.deepEqual([...(await complete(client, { ref: codeRef, argument: { name: 'code', value: 'seol' } })).values].sort(), SEOL);
        const initials = (await complete(client, { ref: codeRef, argument: { name: 'code', value: 'ㅅㅅ' } })).values;
        assert.deepEqual([initials[0], [...initials.slice(1)].sort()], ['203200', ['107060', '221070']]);
        const gal = (await complete(client, { ref: codeRef, argument: { name: 'code', value: 'gal' } })).values;
        assert.deepEqual([gal[0], [...gal.slice(1)].sort()], ['GAL', ['GALM', 'GALV']]);
        // With the market already chosen, that market's stocks only.
        const us = await complete(client, { ref: codeRef, argument: { name: 'code', value: 'se' }, context: { arguments: { market: 'US' } } });
        assert.deepEqual(us, await searched('se', 'US'));
        assert.ok(us.values.length > 0 && us.values.every((c) => !/^\d{6}$/.test(c)));
        // Nothing to match on: no values.
        assert.deepEqual(await complete(client, { ref: codeRef, argument: { name: 'code', value: ' ' } }), { values: [], total: 0, hasMore: false });
      });

      it('completes a market and a sector', async () => {
        const market = (value: string) => complete(client, { ref: codeRef, argument: { name: 'market', value } });
        assert.deepEqual((await market('')).values, ['KR', 'US']);
        assert.deepEqual((await market('u')).values, ['US']);
        assert.deepEqual((await market('JP')).values, []);
        assert.deepEqual((await complete(client, { ref: sectorRef, argument: { name: 'sector', value: 'b' }, context: { arguments: { market: 'KR' } } })).values, ['Biotech', 'Automobiles', 'Food & Beverage']);
        assert.deepEqual((await complete(client, { ref: sectorRef, argument: { name: 'sector', value: 'semi' } })).values, ['Semiconductors']);
        // Korean: 반도체 (Semiconductors) is the one Korean sector name starting with 반; a Korean
        // value completes to the Korean name, which the sector screen reads as its English one.
        assert.deepEqual((await complete(client, { ref: sectorRef, argument: { name: 'sector', value: '반' }, context: { arguments: { market: 'KR' } } })).values, ['반도체']);
        assert.deepEqual((await complete(client, { ref: sectorRef, argument: { name: 'sector', value: 'bank' }, context: { arguments: { market: 'KR' } } })).values, []);
        assert.deepEqual((await complete(client, { ref: sectorRef, argument: { name: 'sector', value: 'bank' }, context: { arguments: { market: 'US' } } })).values, ['Banks']);
      });

      it("completes the prompts' stock arguments the same way, the last of a list of codes", async () => {
        const byCode = await complete(client, { ref: codeRef, argument: { name: 'code', value: 'seol' } });
        assert.deepEqual(await complete(client, { ref: { type: 'ref/prompt', name: 'explain_stock' }, argument: { name: 'stock', value: 'seol' } }), byCode);
        const listed = await complete(client, { ref: { type: 'ref/prompt', name: 'compare_stocks' }, argument: { name: 'codes', value: '186000, gal' } });
        assert.deepEqual([listed.values[0], [...listed.values.slice(1)].sort(), listed.total], ['186000, GAL', ['186000, GALM', '186000, GALV'], 3]);
        // An argument with no completion: none.
        assert.deepEqual((await complete(client, { ref: { type: 'ref/prompt', name: 'korea_export_brief' }, argument: { name: 'months', value: '1' } })).values, []);
      });
    });
  }

  it('completion/complete is admitted like any message: a wrong key is refused before it is answered', async () => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_live_wrongwrongwrongwrongwrongwrongwrong', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'completion/complete', params: { ref: codeRef, argument: { name: 'code', value: '설' } } }),
    });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32001);
  });
});
