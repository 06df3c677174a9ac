// The download side of OpenDART's bulk files (list page, ZIP downloads) and the filing-list
// lookup that dates the bulk reports, against loopback servers. The list page's HTML and the
// list.json rows are constructed in the upstream's shapes (FORMATS.md quotes the link format;
// the rows follow the recorded answers in test/fixtures/real/opendart); the ZIP bodies are real
// sample members in a constructed container.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { HttpClient } from '../../src/sources/http.js';
import { downloadDartBulk, newestPerPeriod, parseDartBulkList, parseDartBulkName } from '../../src/sources/opendart/bulk-list.js';
import { filingDateIndex, parseFilingPeriod } from '../../src/sources/opendart/parse.js';
import { OpenDartSource, threeMonthWindows } from '../../src/sources/opendart/source.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { loopback, zipOf } from './helpers.js';

const link = (year: string, code: string, st: string, name: string): string =>
  `<tr><td><a href="#none" onclick="download_ext002('${year}','${code}', '${st}', '${name}')">${name}</a></td></tr>`;

describe('OpenDART bulk list page', () => {
  it('reads every download_ext002 link; a link whose name disagrees with its own codes is dropped', () => {
    const html = `<table class="tb01">${[
      link('2025', 'FQ', 'BS', '2025_1Q_BS_20250606175523.zip'),
      link('2024', 'FY', 'PL', '2024_4Q_PL_20250401120000.zip'),
      link('2024', 'HY', 'CF', '2024_2Q_CF_20240901000000.zip'),
      link('2024', 'TQ', 'CE', '2024_3Q_CE_20241201000000.zip'),
      // HY is the half year (2Q), not 1Q: not this name.
      link('2024', 'HY', 'BS', '2024_1Q_BS_20240901000000.zip'),
      link('2024', 'FY', 'PL', 'evil/../x.zip'),
    ].join('')}</table>`;
    assert.deepEqual(parseDartBulkList(html), [
      { name: '2025_1Q_BS_20250606175523.zip', year: 2025, quarter: 1, statement: 'BS', stamp: '20250606175523' },
      { name: '2024_4Q_PL_20250401120000.zip', year: 2024, quarter: 4, statement: 'PL', stamp: '20250401120000' },
      { name: '2024_2Q_CF_20240901000000.zip', year: 2024, quarter: 2, statement: 'CF', stamp: '20240901000000' },
      { name: '2024_3Q_CE_20241201000000.zip', year: 2024, quarter: 3, statement: 'CE', stamp: '20241201000000' },
    ]);
  });

  it('keeps the newest build of each period and statement (the stamp changes when DART rebuilds)', () => {
    const files = ['2015_4Q_BS_20160531132458.zip', '2015_4Q_BS_20230503040109.zip', '2015_4Q_PL_20160531132458.zip'].map((n) => parseDartBulkName(n)!);
    assert.deepEqual(newestPerPeriod(files).map((f) => f.name), ['2015_4Q_BS_20230503040109.zip', '2015_4Q_PL_20160531132458.zip']);
    assert.equal(parseDartBulkName('2015_4Q_BS_2016.zip'), null);
  });
});

describe('downloadDartBulk', () => {
  it('downloads the newest builds in range with a browser UA and the main page as Referer; HTML answers fail unsaved; present files are kept; older builds removed', async () => {
    const zip = zipOf([{
      name: iconv.encode('2016_1분기보고서_02_손익계산서_20210317.txt', 'cp949'),
      content: gunzipSync(readFileSync(new URL('../fixtures/real/bulk/opendart/2016_1분기보고서_02_손익계산서_20210317.txt.gz', import.meta.url))),
    }]);
    const html = `<html><table class="tb01">${[
      link('2015', 'FY', 'BS', '2015_4Q_BS_20160531132458.zip'),
      link('2015', 'FY', 'BS', '2015_4Q_BS_20230503040109.zip'),
      link('2016', 'FQ', 'PL', '2016_1Q_PL_20210317040000.zip'),
      link('2016', 'FQ', 'CF', '2016_1Q_CF_20210317040000.zip'),
      link('2016', 'FQ', 'CE', '2016_1Q_CE_20210317040000.zip'),
      link('2014', 'FY', 'BS', '2014_4Q_BS_20200101000000.zip'),
    ].join('')}</table></html>`;
    const server = await loopback((req) => {
      if (req.url.pathname === '/disclosureinfo/fnltt/dwld/list.do') return { body: html, headers: { 'content-type': 'text/html; charset=UTF-8' } };
      if (req.url.pathname === '/cmm/downloadFnlttZip.do') {
        const name = req.url.searchParams.get('fl_nm');
        if (name === '2016_1Q_CF_20210317040000.zip') return { body: '<!DOCTYPE html><html><body>오류</body></html>', headers: { 'content-type': 'text/html' } };
        return { body: zip };
      }
      return { status: 404 };
    });
    const dir = mkdtempSync(join(tmpdir(), 'dart-dl-'));
    try {
      writeFileSync(join(dir, '2015_4Q_BS_20160531132458.zip'), zip); // an older build already here
      writeFileSync(join(dir, '2016_1Q_PL_20210317040000.zip'), zip); // already downloaded
      const progress: ProgressPatch[] = [];
      const http = new HttpClient({ source: 'opendart', fetch, retries: 0 });
      const result = await downloadDartBulk(http, dir, { baseUrl: server.base, fromYear: 2015, toYear: 2016, progress: (p) => void progress.push(p) });
      assert.deepEqual(result.failed, [{ name: '2016_1Q_CF_20210317040000.zip', reason: 'not a ZIP (an HTML page)' }]);
      assert.deepEqual(result.files, [join(dir, '2015_4Q_BS_20230503040109.zip'), join(dir, '2016_1Q_PL_20210317040000.zip')]);
      assert.deepEqual(readdirSync(dir).sort(), ['2015_4Q_BS_20230503040109.zip', '2016_1Q_PL_20210317040000.zip']);
      assert.deepEqual(readFileSync(join(dir, '2015_4Q_BS_20230503040109.zip')), Buffer.from(zip));
      // The list page, then the two files not present (the newest 2015 BS and the 2016 CF); no CE, nothing of 2014.
      const downloads = server.requests.filter((r) => r.url.pathname === '/cmm/downloadFnlttZip.do');
      assert.deepEqual(downloads.map((r) => r.url.searchParams.get('fl_nm')), ['2015_4Q_BS_20230503040109.zip', '2016_1Q_CF_20210317040000.zip']);
      for (const r of server.requests) {
        assert.equal(r.headers['referer'], `${server.base}/disclosureinfo/fnltt/dwld/main.do`);
        assert.match(String(r.headers['user-agent']), /^Mozilla\/5\.0 /);
      }
      assert.deepEqual(progress[0], { phase: 'listing', unit: 'files', done: 0, total: null, note: 'reading the bulk list page' });
      // 3 files in range (2015 BS newest, 2016 PL, 2016 CF); one downloaded: zip.length bytes.
      assert.deepEqual(progress.at(-1), { phase: 'done', done: 3, total: 3, bytes: zip.length, note: '1 file(s) failed' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });

  it('a list page naming no file is an error, not an empty success', async () => {
    const server = await loopback(() => ({ body: '<html>점검 중</html>' }));
    const dir = mkdtempSync(join(tmpdir(), 'dart-dl-'));
    try {
      const http = new HttpClient({ source: 'opendart', fetch, retries: 0 });
      await assert.rejects(downloadDartBulk(http, dir, { baseUrl: server.base, fromYear: 2015, toYear: 2016, progress: () => undefined }), /names no file/);
      assert.equal(existsSync(dir) && readdirSync(dir).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});

describe('filing dates for the bulk reports (list.json)', () => {
  it('cuts a range into windows of at most three months', () => {
    assert.deepEqual(threeMonthWindows('2024-01-01', '2024-07-15'), [
      { from: '2024-01-01', to: '2024-03-31' },
      { from: '2024-04-01', to: '2024-06-30' },
      { from: '2024-07-01', to: '2024-07-15' },
    ]);
    // 11-30 + 3 months has no 02-30: the window ends the day before February's last day.
    assert.deepEqual(threeMonthWindows('2024-11-30', '2025-03-10'), [
      { from: '2024-11-30', to: '2025-02-27' },
      { from: '2025-02-28', to: '2025-03-10' },
    ]);
  });

  it('reads any fiscal year end: the period is the month report_nm names', () => {
    const row = { corp_code: '00134316', stock_code: '021820', report_nm: '분기보고서 (2016.09)', rcept_no: '20161114000123', rcept_dt: '20161114' };
    assert.deepEqual(parseFilingPeriod(row), {
      corpCode: '00134316', stockCode: '021820', rceptNo: '20161114000123', disclosedOn: '2016-11-14', kind: '분기', periodEnd: '2016-09-30', correction: false,
    });
  });

  it('pages list.json per window and market; the earliest receipt per stock code and period, corrections counted', async () => {
    const row = (stock: string, name: string, rcept: string): Record<string, string> => ({
      corp_code: '00000000', corp_name: 'x', stock_code: stock, corp_cls: 'Y', report_nm: name, rcept_no: `${rcept}000001`, flr_nm: 'x', rcept_dt: rcept, rm: '',
    });
    const answers: Record<string, { total_page: number; list: Record<string, string>[] }[]> = {
      // Window 1, KOSPI, two pages: Samsung's Q1 report and its later correction.
      'Y|20240101': [
        { total_page: 2, list: [row('005930', '분기보고서 (2024.03)', '20240515')] },
        { total_page: 2, list: [row('005930', '[기재정정]분기보고서 (2024.03)', '20240603'), row('', '사업보고서 (2023.12)', '20240320')] },
      ],
      // Window 1, KOSDAQ: a June year end's half-year report (period 2023-12-31).
      'K|20240101': [{ total_page: 1, list: [row('021820', '반기보고서 (2023.12)', '20240214')] }],
      // Window 2, KOSPI: a March year end's annual report.
      'Y|20240401': [{ total_page: 1, list: [row('006370', '사업보고서 (2024.03)', '20240614'), row('005930', '주요사항보고서(자기주식취득결정)', '20240410')] }],
    };
    const server = await loopback((req) => {
      const q = req.url.searchParams;
      const pages = answers[`${q.get('corp_cls')}|${q.get('bgn_de')}`];
      const page = Number(q.get('page_no'));
      const body = pages?.[page - 1];
      if (body === undefined) return { body: JSON.stringify({ status: '013', message: '조회된 데이타가 없습니다.' }) };
      return { body: JSON.stringify({ status: '000', message: '정상', page_no: page, page_count: 100, total_count: 3, ...body }) };
    });
    try {
      const source = new OpenDartSource({ apiKey: 'k'.repeat(40), baseUrl: server.base });
      const progress: ProgressPatch[] = [];
      const index = await source.filingDates(new HttpClient({ source: 'opendart', fetch, retries: 0 }), '2024-01-01', '2024-06-30', (p) => void progress.push(p));
      assert.equal(index.knowledgeDate({ stockCode: '005930', periodEnd: '2024-03-31' }), '2024-05-15');
      assert.equal(index.knowledgeDate({ stockCode: '021820', periodEnd: '2023-12-31' }), '2024-02-14');
      assert.equal(index.knowledgeDate({ stockCode: '006370', periodEnd: '2024-03-31' }), '2024-06-14');
      assert.equal(index.knowledgeDate({ stockCode: '005930', periodEnd: '2023-12-31' }), null);
      // Three pairs (the row without a stock code is not one); Samsung's Q1 has a later correction.
      assert.deepEqual([index.size, index.corrected], [3, 1]);
      // Two windows x two markets, page 2 of the first: 5 calls, each with pblntf_ty=A and a window of at most three months.
      const calls = server.requests.map((r) => [r.url.searchParams.get('corp_cls'), r.url.searchParams.get('bgn_de'), r.url.searchParams.get('end_de'), r.url.searchParams.get('page_no'), r.url.searchParams.get('pblntf_ty')]);
      assert.deepEqual(calls, [
        ['Y', '20240101', '20240331', '1', 'A'],
        ['Y', '20240101', '20240331', '2', 'A'],
        ['K', '20240101', '20240331', '1', 'A'],
        ['Y', '20240401', '20240630', '1', 'A'],
        ['K', '20240401', '20240630', '1', 'A'],
      ]);
      assert.deepEqual(progress.map((p) => p.done), [0, 1, 2, 3, 4]);
      assert.equal(progress[0]?.total, 4);
    } finally {
      await server.close();
    }
  });

  it('filingDateIndex: a correction that is the only filing found dates the period itself (and is not counted as later)', () => {
    const index = filingDateIndex([
      { corpCode: '', stockCode: '000660', rceptNo: '', disclosedOn: '2024-06-01', kind: '분기', periodEnd: '2024-03-31', correction: true },
    ]);
    assert.deepEqual([index.knowledgeDate({ stockCode: '000660', periodEnd: '2024-03-31' }), index.corrected], ['2024-06-01', 0]);
  });
});
