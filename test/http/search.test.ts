// search_stocks and rankings paging on both doors (through Fastify's inject()): REST, and MCP
// with the official SDK client, against the started service (SQLite, small demo universe); and the English name
// on every seed tool that names a stock.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { initialsOf, searchKey } from '../../src/domain/search.js';
import { sectorKo } from '../../src/domain/sectors.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;
type Match = { code: string; market: string; name: string; nameEn: string | null; exchange: string; sector: string; sectorKo: string | null; band: string | null; currency: string; matchedOn: string; matchType: string };
type Search = { q: string; market: string | null; matches: Match[]; totalCount: number; updatedAt: string; source: string };
type Row = { ticker: string; market: string; name: string; nameEn?: string | null };

describe('search_stocks and rankings paging', () => {
  let t: TestServer;
  let key: string;
  let base: string;
  let client: Client;
  let kr: { code: string; name: string; nameEn: string | null; sector: string; exchange: string };
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    base = `${t.url}/api/public/v2`;
    const securities = await t.app.store.market.securities();
    const s = securities.find((x) => x.market === 'KR')!;
    kr = { code: s.code, name: s.name, nameEn: s.nameEn ?? null, sector: s.sector, exchange: s.exchange };
    client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), { fetch: t.fetch, requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  const search = async (query: string): Promise<{ status: number; body: Search }> => {
    const res = await t.get(`${base}/stocks?${query}`, key);
    return { status: res.status, body: res.body as Search };
  };

  describe('REST GET /stocks', () => {
    it('finds a KR stock by its Korean name, its initials, its English name and its code', async () => {
      assert.match(kr.name, /^[가-힣]+\d*$/);
      assert.ok(kr.nameEn);
      const byName = await search(`q=${encodeURIComponent(kr.name)}`);
      assert.equal(byName.status, 200);
      const first = byName.body.matches[0]!;
      assert.deepEqual(
        { ...first, band: undefined },
        { code: kr.code, market: 'KR', name: kr.name, nameEn: kr.nameEn, exchange: kr.exchange, sector: kr.sector, sectorKo: sectorKo(kr.sector), band: undefined, currency: 'KRW', matchedOn: 'name', matchType: 'exact' },
      );
      assert.ok(first.band === null || ['mega', 'xlarge', 'large', 'mid', 'small'].includes(first.band));
      assert.equal(byName.body.source, 'demo');
      assert.equal(byName.body.market, null);

      // Typed as a Korean keyboard gives them: compatibility jamo (ㅎ, ㅅ), not the conjoining ones.
      const typed = [...initialsOf(searchKey(kr.name))].map((c) => COMPAT_JAMO[c.codePointAt(0)! - 0x1100]).join('');
      const byInitials = await search(`q=${encodeURIComponent(typed)}&limit=50`);
      const hit = byInitials.body.matches.find((m) => m.code === kr.code);
      assert.ok(hit, `${typed} finds ${kr.name}`);
      assert.deepEqual([hit.matchedOn, hit.matchType], ['initials', 'exact']);

      const english = kr.nameEn!.toUpperCase().replace(/ /g, '');
      const byEnglish = await search(`q=${encodeURIComponent(english)}&market=KR`);
      assert.deepEqual([byEnglish.body.matches[0]?.code, byEnglish.body.matches[0]?.matchedOn], [kr.code, 'nameEn']);
      assert.equal(byEnglish.body.market, 'KR');

      const byCode = await search(`q=${kr.code}`);
      assert.deepEqual([byCode.body.matches[0]?.code, byCode.body.matches[0]?.matchType], [kr.code, 'exact']);
    });

    it('finds a US class share by its ticker written either way; market and limit bound the answer', async () => {
      const classShare = (await t.app.store.market.securities()).find((s) => s.code.includes('.'));
      if (classShare) {
        const dashed = await search(`q=${classShare.code.toLowerCase().replace('.', '-')}`);
        assert.deepEqual([dashed.body.matches[0]?.code, dashed.body.matches[0]?.nameEn], [classShare.code, classShare.name]);
      }
      const all = await search('q=a&limit=50');
      assert.equal(all.body.matches.length, Math.min(50, all.body.totalCount));
      const two = await search('q=a&limit=2');
      assert.deepEqual(two.body.matches, all.body.matches.slice(0, 2));
      assert.equal(two.body.totalCount, all.body.totalCount);
      const usOnly = await search('q=a&market=US&limit=50');
      assert.ok(usOnly.body.matches.every((m) => m.market === 'US' && m.currency === 'USD'));
      assert.ok(usOnly.body.totalCount < all.body.totalCount);
    });

    it('refuses an empty, blank or too long q, a bad market or limit, naming the parameter', async () => {
      const cases: [string, string][] = [
        ['', 'q'],
        ['q=', 'q'],
        ['q=%20-%20', 'q'],
        [`q=${'a'.repeat(51)}`, 'q'],
        ['q=a&market=JP', 'market'],
        ['q=a&market=KR,US', 'market'],
        ['q=a&limit=0', 'limit'],
        ['q=a&limit=51', 'limit'],
        ['q=a&limit=ten', 'limit'],
        ['q=a&offset=1', 'offset'],
      ];
      for (const [query, parameter] of cases) {
        const res = await t.get(`${base}/stocks?${query}`, key);
        assert.equal(res.status, 400, query);
        const problem = res.body as Json;
        assert.deepEqual([problem.code, problem.parameter], ['invalid_parameter', parameter], `${query}: ${String(problem.detail)}`);
      }
      assert.equal((await search(`q=${'a'.repeat(50)}`)).status, 200);
    });

    it('counts each search as one call', async () => {
      const health = async () => ((await t.get(`${base}/health`, key)).body as { callsToday: number }).callsToday;
      const before = await health();
      await search('q=b');
      await t.get(`${base}/stocks?limit=0`, key);
      assert.equal(await health(), before + 3, 'two searches (one refused) and the health call itself');
    });
  });

  describe('MCP search_stocks', () => {
    it('is listed with its schemas, answers what REST answers, and refuses bad arguments as a tool error', async () => {
      const { tools } = await client.listTools();
      const tool = tools.find((x) => x.name === 'search_stocks');
      assert.ok(tool);
      const props = tool.inputSchema.properties as Record<string, Json>;
      assert.deepEqual(Object.keys(props).sort(), ['asOf', 'limit', 'market', 'q']);
      assert.deepEqual([props.limit?.minimum, props.limit?.maximum, props.limit?.default], [1, 50, 10]);
      assert.deepEqual(tool.inputSchema.required, ['q']);
      // The SDK client validates structuredContent against the outputSchema itself.
      const result = await client.callTool({ name: 'search_stocks', arguments: { q: kr.name, market: 'KR', limit: 3 } });
      assert.notEqual(result.isError, true);
      const rest = await search(`q=${encodeURIComponent(kr.name)}&market=KR&limit=3`);
      assert.deepEqual(result.structuredContent, rest.body);
      const bad = await client.callTool({ name: 'search_stocks', arguments: { q: '' } });
      assert.equal(bad.isError, true);
      assert.match((bad.content as { text: string }[])[0]!.text, /^invalid_parameter: parameter 'q'/);
      const badMarket = await client.callTool({ name: 'search_stocks', arguments: { q: 'a', market: 'EU' } });
      assert.match((badMarket.content as { text: string }[])[0]!.text, /parameter 'market'/);
    });
  });

  describe('rankings offset', () => {
    it('REST: walking every page with offset gives the whole sorted list once', async () => {
      const filter = 'market=KR,US&bands=mega,xlarge,large,mid,small';
      const whole = (await t.get(`${base}/rankings?${filter}&limit=200`, key)).body as { rows: Row[]; totalCount: number };
      assert.ok(whole.totalCount > 7 && whole.totalCount <= 200, `${whole.totalCount} rows`);
      const walked: Row[] = [];
      for (let offset = 0; offset < whole.totalCount; offset += 7) {
        const page = (await t.get(`${base}/rankings?${filter}&limit=7&offset=${offset}`, key)).body as { rows: Row[]; totalCount: number };
        assert.equal(page.totalCount, whole.totalCount);
        walked.push(...page.rows);
      }
      assert.deepEqual(walked, whole.rows);
      const past = (await t.get(`${base}/rankings?${filter}&offset=${whole.totalCount}`, key)).body as { rows: Row[]; totalCount: number };
      assert.deepEqual([past.rows, past.totalCount], [[], whole.totalCount]);
      for (const offset of ['-1', '1.5', 'x']) {
        const res = await t.get(`${base}/rankings?offset=${offset}`, key);
        assert.deepEqual([res.status, (res.body as Json).parameter], [400, 'offset'], offset);
      }
    });

    it('MCP: the same walk with the official client; offset is in the inputSchema', async () => {
      const { tools } = await client.listTools();
      const offset = (tools.find((x) => x.name === 'get_rankings')!.inputSchema.properties as Record<string, Json>).offset;
      assert.deepEqual([offset?.type, offset?.minimum, offset?.default], ['integer', 0, 0]);
      const args = { market: 'KR', bands: 'mega,xlarge,large,mid,small' };
      const whole = (await client.callTool({ name: 'get_rankings', arguments: { ...args, limit: 100 } })).structuredContent as { rows: Row[]; totalCount: number };
      const walked: Row[] = [];
      for (let at = 0; at < whole.totalCount; at += 5) {
        walked.push(...((await client.callTool({ name: 'get_rankings', arguments: { ...args, limit: 5, offset: at } })).structuredContent as { rows: Row[] }).rows);
      }
      assert.deepEqual(walked, whole.rows);
    });
  });

  describe('nameEn on the seed tools', () => {
    it('every result that names a KR stock carries its English name; a US stock its name', async () => {
      const paths = ['score', 'snapshot', 'percentile', 'prices?limit=1', 'valuation-band'];
      for (const path of paths) {
        const body = (await t.get(`${base}/stocks/${kr.code}/${path}`, key)).body as Json;
        assert.deepEqual([body.name, body.nameEn], [kr.name, kr.nameEn], path);
      }
      const rows = ((await t.get(`${base}/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: Row[] }).rows;
      for (const row of rows) {
        if (row.market === 'US') assert.equal(row.nameEn, row.name);
        else assert.ok(row.nameEn && /^[가-힣]+\d*$/.test(row.name), `${row.ticker} ${row.name} ${row.nameEn}`);
      }
    });
  });
});

/** Hangul compatibility jamo of the 19 initial consonants, in U+1100.. order (what a keyboard types). */
const COMPAT_JAMO = ['ㄱ', 'ㄲ', 'ㄴ', 'ㄷ', 'ㄸ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅃ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅉ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ'];
