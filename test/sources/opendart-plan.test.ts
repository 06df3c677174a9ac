// OpenDART's company records planned against the day's allowance (small allowances here; the
// real one is 20,000): every listed company not yet known on one run, progress in companies,
// a paced stop with what it has, and the count carried across a restart through `calls`.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { OpenDartSource } from '../../src/sources/opendart/source.js';
import { context, fixture, loopback, zipOne } from './helpers.js';

const KEY = 'dartkey0123456789abcdef0123456789abcdef';

/**
 * corpCode.xml (hand-written fixture: two listed companies, 00113526 한국가스공사 and 00126380
 * 삼성전자), a filing list with no rows (status 013), company.json: 삼성전자 recorded, the other 013.
 */
async function dart(): Promise<Awaited<ReturnType<typeof loopback>>> {
  const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
  return loopback((req) => {
    if (req.url.pathname === '/api/corpCode.xml') return { body: zip };
    if (req.url.pathname === '/api/list.json') return { body: fixture('opendart/fnltt_status_013.json') };
    if (req.url.pathname === '/api/company.json') {
      return { body: fixture(req.url.searchParams.get('corp_code') === '00126380' ? 'opendart/company_00126380.json' : 'opendart/company_status_013.json') };
    }
    return { status: 500, body: 'unexpected' };
  });
}

describe('OpenDART company records against the allowance', () => {
  it('asks every listed company on one run, with progress in companies', async () => {
    const server = await dart();
    try {
      const progress: ProgressPatch[] = [];
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 5, clock: () => new Date('2024-11-21T03:00:00Z') });
      // requestsPerSecond 5 spaces calls 200 ms apart: 2 companies -> ETA 0.4 s -> 1 s at the start.
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: '2024-11-20', progress: (p) => void progress.push(p) }));
      assert.equal(result.cursor, '{"date":"2024-11-21","known":["00126380"]}');
      assert.equal(result.data.securities?.length, 1);
      // corpCode.xml, list.json, two company.json: 4 calls of 20,000 on 2024-11-21 (Seoul).
      assert.deepEqual(result.calls, { day: '2024-11-21', calls: 4 });
      assert.deepEqual(progress[0], {
        phase: 'calling', unit: 'companies', done: 0, total: 2, etaSeconds: 1, nextTryAt: null,
        note: 'company records and sectors (company.json)', callsToday: 2, dailyAllowance: 20_000,
      });
      assert.deepEqual(progress.slice(1).map((p) => [p.phase, p.done, p.callsToday]), [[undefined, 1, 3], [undefined, 2, 4], ['done', 2, 4]]);
    } finally {
      await server.close();
    }
  });

  it('stops asking company records when the run\'s time budget is spent; the rest follow next run', async () => {
    let now = new Date('2024-11-21T03:00:00Z');
    const zip = zipOne('CORPCODE.xml', fixture('opendart/CORPCODE.xml'));
    const server = await loopback((req) => {
      if (req.url.pathname === '/api/corpCode.xml') return { body: zip };
      if (req.url.pathname === '/api/list.json') return { body: fixture('opendart/fnltt_status_013.json') };
      // Each company.json takes 200 s of the (injected) clock.
      now = new Date(now.getTime() + 200_000);
      return { body: fixture(req.url.searchParams.get('corp_code') === '00126380' ? 'opendart/company_00126380.json' : 'opendart/company_status_013.json') };
    });
    try {
      const progress: ProgressPatch[] = [];
      const source = new OpenDartSource({ apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, clock: () => now, runBudgetMs: 100_000 });
      const result = await source.ingest(context({ asOf: '2024-11-21', cursor: '2024-11-20', progress: (p) => void progress.push(p) }));
      // At 0 s the first (00113526, 013) is asked; at 200 s >= 100 s the second waits for the next run.
      assert.equal(server.requests.filter((r) => r.url.pathname === '/api/company.json').length, 1);
      assert.equal(result.cursor, '{"date":"2024-11-21","known":[]}');
      assert.deepEqual([progress.at(-1)?.phase, progress.at(-1)?.done, progress.at(-1)?.total], ['waiting', 1, 2]);
    } finally {
      await server.close();
    }
  });

  it('out of the allowance: stops with what it has, paced until the Seoul midnight; a restart the same day asks nothing; the next day resumes', async () => {
    const server = await dart();
    const companyCalls = (): number => server.requests.filter((r) => r.url.pathname === '/api/company.json').length;
    try {
      // 23:00 on 2024-11-21 in Seoul; allowance 3 = corpCode.xml + list.json + one company.json.
      let now = new Date('2024-11-21T14:00:00Z');
      const config = { apiKey: KEY, baseUrl: server.base, requestsPerSecond: 0, dailyAllowance: 3, clock: () => now };
      const progress: ProgressPatch[] = [];
      const first = await new OpenDartSource(config).ingest(context({ asOf: '2024-11-21', cursor: '2024-11-20', progress: (p) => void progress.push(p) }));
      assert.equal(companyCalls(), 1); // 00113526 (013); 00126380 was not asked
      assert.equal(first.cursor, '{"date":"2024-11-21","known":[]}');
      assert.deepEqual(first.calls, { day: '2024-11-21', calls: 3 });
      const paced = progress.at(-1);
      assert.equal(paced?.phase, 'paced');
      assert.equal(paced?.nextTryAt?.toISOString(), '2024-11-21T15:00:00.000Z');
      assert.deepEqual([paced?.done, paced?.total], [1, 2]);

      // A restart (a new instance) the same day: the reported count says the allowance is used.
      const restarted = new OpenDartSource(config);
      const second = await restarted.ingest(context({ asOf: '2024-11-21', cursor: first.cursor, calls: first.calls }));
      assert.equal(companyCalls(), 1);
      assert.deepEqual(second, { data: {}, cursor: first.cursor, calls: { day: '2024-11-21', calls: 3 } });

      // 00:00 on 2024-11-22 in Seoul: a fresh allowance.
      now = new Date('2024-11-21T15:00:00Z');
      const third = await restarted.ingest(context({ asOf: '2024-11-22', cursor: second.cursor, calls: second.calls }));
      assert.equal(companyCalls(), 2); // 00113526 again (013), then out of today's 3 before 00126380
      assert.deepEqual(third.calls, { day: '2024-11-22', calls: 3 });
    } finally {
      await server.close();
    }
  });
});
