// screen_stocks on the served demo universe, over both doors: every figure of a screen agrees
// exactly with what the per-stock tools say for that stock; filters, order and paging hold;
// bad arguments are invalid_parameter naming the argument; the MCP answer stays within budget.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { closeShareSeries, priceChanges } from '../domain/oracles.js';
import { PERCENTILE_METRICS } from '../../src/domain/results.js';
import { SCREEN_FIELDS } from '../../src/domain/screen.js';
import { sectorKo } from '../../src/domain/sectors.js';
import { screenStocks } from '../../src/tools/screen-stocks.js';
import { startTestApp, type TestServer } from '../support/server.js';

type Json = Record<string, unknown>;
type Row = Json & { code: string; market: 'KR' | 'US'; name: string; nameEn: string | null; sector: string; band: string | null; currency: string };
type Screen = { rows: Row[]; count: number; totalCount: number; droppedForNull: Record<string, number>; truncated?: true; truncation?: { returned: number; available: number; rest: string } };

describe('screen_stocks', () => {
  let t: TestServer;
  let key: string;
  let base: string;
  let client: Client;
  before(async () => {
    t = await startTestApp();
    key = await t.newKey('paid');
    base = `${t.url}/api/public/v2`;
    client = new Client({ name: 'screen-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), { fetch: t.fetch, requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  const rest = async (query: string): Promise<Screen> => {
    const res = await t.get(`${base}/screen?${query}`, key);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return res.body as Screen;
  };

  it('both markets, three bounds, sorted by a fourth: every row agrees with get_stock_snapshot, get_sector_percentile, get_stock_score, get_rankings and get_price_history', async () => {
    const all = SCREEN_FIELDS.join(',');
    const s = await rest(`market=KR,US&filters=roe:5:,per::40,operatingMargin:3:&sort=revenueYoy:desc&fields=${all}&limit=200`);
    assert.ok(s.totalCount >= 10, `${s.totalCount} stocks pass`);
    assert.equal(s.count, s.totalCount);
    assert.ok(s.rows.some((r) => r.market === 'KR') && s.rows.some((r) => r.market === 'US'), 'both markets');

    // The same screen's universe, unbounded: which stocks should pass, and which were null.
    const everything = await rest(`market=KR,US&fields=roe,per,operatingMargin&limit=200`);
    assert.ok(everything.totalCount <= 200, 'the demo universe fits one page');
    const passes = (r: Row) => r.roe !== null && (r.roe as number) >= 5 && r.per !== null && (r.per as number) <= 40 && r.operatingMargin !== null && (r.operatingMargin as number) >= 3;
    assert.deepEqual(s.rows.map((r) => `${r.market}:${r.code}`).sort(), everything.rows.filter(passes).map((r) => `${r.market}:${r.code}`).sort());
    assert.deepEqual(s.droppedForNull, {
      roe: everything.rows.filter((r) => r.roe === null).length,
      per: everything.rows.filter((r) => r.per === null).length,
      operatingMargin: everything.rows.filter((r) => r.operatingMargin === null).length,
    });
    assert.ok((s.droppedForNull['per'] ?? 0) > 0, 'some stocks have no PER (losses): the null count is exercised');

    // Order: revenueYoy descending, nulls last, ties by code then market.
    for (let i = 1; i < s.rows.length; i++) {
      const [a, b] = [s.rows[i - 1] as Row, s.rows[i] as Row];
      if (a.revenueYoy === null) assert.equal(b.revenueYoy, null);
      else if (b.revenueYoy !== null) assert.ok((a.revenueYoy as number) > (b.revenueYoy as number) || (a.revenueYoy === b.revenueYoy && a.code <= b.code));
    }

    const rankings = (await t.get(`${base}/rankings?market=KR,US&bands=mega,xlarge,large,mid,small&limit=200`, key)).body as { rows: (Json & { ticker: string; market: string })[] };
    const ranked = new Map(rankings.rows.map((r) => [`${r.market}:${r.ticker}`, r]));
    for (const row of s.rows) {
      const at = `${row.market}:${row.code}`;
      const snapshot = (await t.get(`${base}/stocks/${row.code}/snapshot`, key)).body as Json & { price: { close: number; marketCap: number } | null } & Record<string, Record<string, { value: number | null }>>;
      const percentile = (await t.get(`${base}/stocks/${row.code}/percentile`, key)).body as { metrics: { metric: string; value: number | null }[]; name: string; nameEn: string | null; currency: string };
      const score = (await t.get(`${base}/stocks/${row.code}/score`, key)).body as Json;
      // Identity as every other answer gives it.
      assert.deepEqual([row.name, row.nameEn, row.currency, row.band], [percentile.name, percentile.nameEn, percentile.currency, score.band], at);
      for (const metric of PERCENTILE_METRICS) assert.equal(row[metric], percentile.metrics.find((m) => m.metric === metric)?.value, `${at} ${metric}`);
      for (const group of ['valuation', 'profitability', 'growth', 'stability', 'cashGeneration', 'earningsQuality']) {
        for (const [metric, m] of Object.entries(snapshot[group] as Record<string, { value: number | null }>)) {
          if (metric !== 'operatingCashFlow') assert.equal(row[metric], m.value, `${at} snapshot ${metric}`);
        }
      }
      assert.equal(row.marketCap, snapshot.price?.marketCap, at);
      assert.equal(row.currentPrice, snapshot.price?.close, at);
      assert.equal(row.marketCap, score.marketCap, at);
      assert.equal(row.score, score.score, at);
      assert.equal(row.grade, score.grade, at);
      assert.equal(row.v3Score, score.v3Score, at);
      assert.equal(row.gapPct, score.gapPct, at);
      assert.equal(row.expectedReturn, score.gapPct, `${at}: expectedReturn = gapPct`);
      const inRankings = ranked.get(at);
      if (row.v3Score !== null) {
        assert.ok(inRankings, `${at} is ranked`);
        assert.deepEqual([inRankings.score, inRankings.gapPct, inRankings.marketCap, inRankings.band], [row.v3Score, row.gapPct, row.marketCap, row.band], at);
      } else assert.equal(inRankings, undefined, at);
      // Price changes from the daily closes get_price_history gives (the demo has no splits).
      const history = (await t.get(`${base}/stocks/${row.code}/prices?limit=2600`, key)).body as { bars: { date: string; close: number }[] };
      const changes = priceChanges(closeShareSeries(history.bars.map((b) => ({ date: b.date, close: b.close, shares: 1 }))));
      assert.deepEqual([row.priceChange1m, row.priceChange3m, row.priceChange12m], [changes.m1, changes.m3, changes.m12], at);
    }
    assert.ok(s.rows.filter((r) => r.priceChange12m !== null).length > s.rows.length / 2, 'the 12-month changes are numbers');
  });

  it('filters by market, sector and band; pages one order; the MCP door gives the REST answer in the compact form', async () => {
    const kr = await rest('market=KR&limit=200&fields=marketCap');
    assert.ok(kr.rows.every((r) => r.market === 'KR'));
    const sector = (kr.rows[0] as Row).sector;
    const inSector = await rest(`market=KR&sectors=${encodeURIComponent(sector)}&limit=200&fields=marketCap`);
    assert.deepEqual(inSector.rows, kr.rows.filter((r) => r.sector === sector));
    // Several sectors: separated by | (a sector name may hold commas).
    const other = kr.rows.find((r) => r.sector !== sector)!.sector;
    const two = await rest(`market=KR&sectors=${encodeURIComponent(`${sector}|${other}`)}&limit=200&fields=marketCap`);
    assert.deepEqual(two.rows, kr.rows.filter((r) => r.sector === sector || r.sector === other));
    const comma = await t.get(`${base}/screen?market=KR&sectors=${encodeURIComponent(`${sector},${other}`)}`, key);
    assert.equal(comma.status, 400);
    assert.match(String((comma.body as Json).detail), /\(separate sectors with \| on REST\)/);
    // Every row names its sector in Korean too (src/domain/sectors.ts), and a filter takes either
    // name: 반도체 is Semiconductors, on both doors; the answer echoes the English name screened.
    assert.ok(kr.rows.every((r) => r.sectorKo === sectorKo(r.sector) && r.sectorKo !== null), 'every demo sector has its Korean name');
    const chips = await rest('market=KR&sectors=Semiconductors&limit=200&fields=marketCap');
    assert.ok(chips.rows.length > 0 && chips.rows.every((r) => r.sector === 'Semiconductors' && r.sectorKo === '반도체'));
    const byKo = (await rest(`market=KR&sectors=${encodeURIComponent('반도체')}&limit=200&fields=marketCap`)) as Screen & { sectors: string[] };
    assert.deepEqual(byKo.rows, chips.rows);
    assert.deepEqual(byKo.sectors, ['Semiconductors']);
    const mixed = await rest(`market=KR&sectors=${encodeURIComponent(`반도체|${sectorKo(other) ?? ''}|Semiconductors`)}&limit=200&fields=marketCap`);
    assert.deepEqual(mixed.rows, kr.rows.filter((r) => r.sector === 'Semiconductors' || r.sector === other));
    const mcpKo = await client.callTool({ name: 'screen_stocks', arguments: { market: 'KR', sectors: ['반도체'], fields: ['marketCap'], limit: 200, format: 'rows' } });
    assert.deepEqual((mcpKo.structuredContent as { rows: Row[] }).rows, chips.rows);
    const big = await rest('market=KR&bands=mega,xlarge&limit=200&fields=marketCap');
    assert.deepEqual(big.rows, kr.rows.filter((r) => r.band === 'mega' || r.band === 'xlarge'));
    // marketCap descending is the default order.
    for (let i = 1; i < kr.rows.length; i++) assert.ok(((kr.rows[i - 1] as Row).marketCap as number) >= ((kr.rows[i] as Row).marketCap as number) || (kr.rows[i] as Row).marketCap === null);
    // Paging: offset walks the same order.
    const page = await rest('market=KR&limit=5&offset=5&fields=marketCap');
    assert.deepEqual(page.rows, kr.rows.slice(5, 10));
    assert.equal(page.totalCount, kr.totalCount);

    const mcp = await client.callTool({ name: 'screen_stocks', arguments: { market: 'KR', bands: ['mega', 'xlarge'], fields: ['marketCap'], limit: 200 } });
    assert.notEqual(mcp.isError, true);
    const compact = mcp.structuredContent as { rows: { columns: string[]; rows: unknown[][] } };
    assert.deepEqual(compact.rows.columns, ['code', 'market', 'name', 'nameEn', 'sector', 'sectorKo', 'band', 'currency', 'marketCap']);
    assert.deepEqual(compact.rows.rows, big.rows.map((r) => compact.rows.columns.map((c) => r[c])));
  });

  it('filters by exchange on both doors: exactly the stocks the store lists on those exchanges, with sectors and bounds; unknown exchanges are invalid_parameter', async () => {
    // Each stock's exchange as the store lists it, the reference the rows are checked against.
    const exchangeOf = new Map((await t.app.store.market.securities()).map((s) => [`${s.market}:${s.code}`, s.exchange]));
    const all = await rest('market=KR,US&fields=marketCap,roe&limit=200');
    assert.ok(all.totalCount <= 200, 'the demo universe fits one page');
    const on = (...names: string[]) => all.rows.filter((r) => names.includes(exchangeOf.get(`${r.market}:${r.code}`) ?? ''));
    const kosdaq = await rest('exchanges=KOSDAQ&fields=marketCap,roe&limit=200');
    assert.ok(kosdaq.totalCount > 0 && kosdaq.totalCount < all.rows.filter((r) => r.market === 'KR').length, `${kosdaq.totalCount} KOSDAQ stocks`);
    assert.deepEqual(kosdaq.rows, on('KOSDAQ'));
    assert.equal(kosdaq.totalCount, on('KOSDAQ').length);
    // Two exchanges of two markets, in the one order (marketCap descending).
    const two = await rest('exchanges=KOSPI,NASDAQ&fields=marketCap,roe&limit=200');
    assert.deepEqual(two.rows, on('KOSPI', 'NASDAQ'));
    assert.ok(two.rows.some((r) => r.market === 'KR') && two.rows.some((r) => r.market === 'US'));
    // The issue's example: KOSDAQ stocks of one sector with a bound (ROE >= 0), nulls counted among them only.
    const sector = (kosdaq.rows[0] as Row).sector;
    const inSector = on('KOSDAQ').filter((r) => r.sector === sector);
    const bounded = await rest(`market=KR&exchanges=KOSDAQ&sectors=${encodeURIComponent(sector)}&filters=roe:0:&fields=marketCap,roe&limit=200`);
    assert.deepEqual(bounded.rows, inSector.filter((r) => r.roe !== null && (r.roe as number) >= 0));
    assert.deepEqual(bounded.droppedForNull, { roe: inSector.filter((r) => r.roe === null).length });
    // MCP: the same rows from a list.
    const mcp = await client.callTool({ name: 'screen_stocks', arguments: { exchanges: ['KOSDAQ'], fields: ['marketCap', 'roe'], limit: 200, format: 'rows' } });
    assert.deepEqual((mcp.structuredContent as Screen).rows, kosdaq.rows);
    assert.deepEqual((mcp.structuredContent as Json).exchanges, ['KOSDAQ']);
    // Unknown exchanges name the allowed ones of the chosen markets (the demo lists KOSPI, KOSDAQ, NYSE and NASDAQ).
    const cases: [Json, string, string][] = [
      [{ exchanges: ['KONEX'] }, 'exchanges=KONEX', "parameter 'exchanges' names 'KONEX', no exchange of KR,US; allowed: KOSDAQ, KOSPI, NASDAQ, NYSE"],
      [{ market: 'US', exchanges: ['KOSPI'] }, 'market=US&exchanges=KOSPI', "parameter 'exchanges' names 'KOSPI', no exchange of US; allowed: NASDAQ, NYSE"],
    ];
    for (const [args, query, detail] of cases) {
      const res = await t.get(`${base}/screen?${query}`, key);
      assert.equal(res.status, 400, query);
      assert.deepEqual([(res.body as Json).code, (res.body as Json).detail], ['invalid_parameter', detail], query);
      const result = await client.callTool({ name: 'screen_stocks', arguments: args });
      assert.equal(result.isError, true);
      assert.equal((result.content as { text: string }[])[0]!.text.replace(/^invalid_parameter: /, ''), detail);
    }
  });

  it('grade bounds in grade order, on both doors; an unencoded + in a REST grade reads as +', async () => {
    const all = await rest('fields=grade,score&limit=200');
    const rank = { 'A+': 6, A: 5, 'B+': 4, B: 3, 'C+': 2, C: 1, D: 0 } as Record<string, number>;
    const expected = all.rows.filter((r) => r.grade !== null && rank[r.grade as string]! >= 4 && rank[r.grade as string]! <= 5);
    assert.ok(expected.length > 0 && expected.length < all.rows.length, `${expected.length} of ${all.rows.length}`);
    const encoded = await rest('filters=grade:B%2B:A&fields=grade,score&limit=200');
    const raw = await rest('filters=grade:B+:A&fields=grade,score&limit=200');
    assert.deepEqual(encoded.rows, expected);
    assert.deepEqual(raw.rows, expected);
    assert.equal(encoded.droppedForNull['grade'], all.rows.filter((r) => r.grade === null).length);
    const mcp = await client.callTool({ name: 'screen_stocks', arguments: { filters: [{ field: 'grade', min: 'B+', max: 'A' }], fields: ['grade', 'score'], limit: 200, format: 'rows' } });
    assert.deepEqual((mcp.structuredContent as Screen).rows, expected);
    assert.deepEqual((mcp.structuredContent as Json).filters, [{ field: 'grade', min: 'B+', max: 'A' }]);
  });

  it('bad arguments are invalid_parameter naming the argument and the allowed values, on both doors', async () => {
    const cases: [Json, string, RegExp][] = [
      [{ filters: [{ field: 'roa', min: 1 }] }, 'filters=roa:1:', /^parameter 'filters' names an unknown field 'roa'; allowed: per, pbr, psr, /],
      [{ filters: [{ field: 'roe', min: 20, max: 10 }] }, 'filters=roe:20:10', /^parameter 'filters' has min 20 > max 10 for 'roe'; allowed: min <= max$/],
      [{ filters: [{ field: 'sector', min: 1 }] }, 'filters=sector:1:', /^parameter 'filters' bounds 'sector', a text field \(filter it with market, sectors, bands or exchanges\); allowed: per, pbr, .*, grade$/],
      [{ filters: [{ field: 'grade', min: 1 }] }, 'filters=grade:1:', /^parameter 'filters' bounds grade with the number 1; allowed: grades A\+, A, B\+, B, C\+, C, D/],
      [{ filters: [{ field: 'grade', min: 'A', max: 'C' }] }, 'filters=grade:A:C', /^parameter 'filters' has min A above max C for 'grade'/],
      [{ filters: [{ field: 'roe', min: 'A' }] }, 'filters=roe:A:', /^parameter 'filters' bounds 'roe' with the grade A; allowed: numbers/],
      [{ sectors: ['Fishing'] }, 'sectors=Fishing', /^parameter 'sectors' names 'Fishing', no sector of KR,US; allowed: .*Semiconductors/],
      [{ sort: { field: 'name' } }, 'sort=name', /^parameter 'sort' names 'name', a text field; allowed: per, .*, grade$/],
      [{ fields: ['price'] }, 'fields=price', /^parameter 'fields' names an unknown field 'price'; allowed: per, /],
    ];
    for (const [args, query, detail] of cases) {
      const res = await t.get(`${base}/screen?${query}`, key);
      assert.equal(res.status, 400, query);
      assert.equal((res.body as Json).code, 'invalid_parameter', query);
      assert.match(String((res.body as Json).detail), detail, query);
      const result = await client.callTool({ name: 'screen_stocks', arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match((result.content as { text: string }[])[0]!.text.replace(/^invalid_parameter: /, ''), detail, JSON.stringify(args));
    }
    // REST's own syntax.
    const bad = await t.get(`${base}/screen?filters=roe:ten:`, key);
    assert.equal(bad.status, 400);
    assert.match(String((bad.body as Json).detail), /^parameter 'filters' "roe:ten:" has a bound that is not field:min:max/);
    const limit = await t.get(`${base}/screen?limit=201`, key);
    assert.match(String((limit.body as Json).detail), /^parameter 'limit' 201 is out of range; allowed: an integer from 1 to 200; default 50$/);
  });

  it('the OpenAPI document shows the query language with examples, and every example answers', async () => {
    const doc = (await t.get(`${base}/openapi.json`, null)).body as { paths: Record<string, { get: { description: string; parameters: { name: string; examples?: Record<string, { value: string }> }[] } }> };
    const op = doc.paths['/api/public/v2/screen']!.get;
    assert.ok(screenStocks.examples && screenStocks.examples.length >= 3);
    for (const example of screenStocks.examples) {
      const query = new URLSearchParams(example.query as Record<string, string>).toString();
      assert.ok(op.description.includes(`GET /api/public/v2/screen?${query}`), example.summary);
      for (const [name, value] of Object.entries(example.query)) {
        assert.ok(Object.values(op.parameters.find((p) => p.name === name)?.examples ?? {}).some((e) => e.value === value), `${name} example ${value}`);
      }
      const s = await rest(query);
      assert.equal(typeof s.totalCount, 'number', example.summary);
    }
    const filters = op.parameters.find((p) => p.name === 'filters') as unknown as { description: string };
    assert.match(filters.description, /field:min:max/);
  });

  it('counts as one call', async () => {
    const before = (await t.get(`${base}/health`, key)).body as { callsToday: number };
    await rest('filters=roe:5:,per::40,operatingMargin:3:&limit=200');
    const after = (await t.get(`${base}/health`, key)).body as { callsToday: number };
    // health itself counts: one for the screen, one for the second health.
    assert.equal(after.callsToday, before.callsToday + 2);
  });

  it('at maximum arguments over MCP, an answer over the budget keeps the first rows and says how to page on', async () => {
    const result = await client.callTool({ name: 'screen_stocks', arguments: { fields: [...SCREEN_FIELDS], limit: 200, format: 'rows' } });
    assert.ok(JSON.stringify(result).length / 4 <= 25_000);
    const s = result.structuredContent as Screen;
    const whole = await rest(`fields=${SCREEN_FIELDS.join(',')}&limit=200`);
    assert.equal(s.truncated, true, 'every field of the demo universe is over the budget in object rows');
    assert.deepEqual(s.rows, whole.rows.slice(0, s.rows.length), 'the first rows, unchanged');
    assert.equal(s.count, s.rows.length);
    assert.equal(s.truncation?.available, whole.rows.length);
    assert.equal(s.truncation?.rest, `the rows after the first ${s.rows.length}: call again with offset increased by ${s.rows.length} (or fewer fields)`);
  });
});
