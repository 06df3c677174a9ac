// SEC's bulk archives (companyfacts.zip, submissions.zip) read by SecBulkReader, and their
// download. The archives are built in a temp dir from the REAL recordings in
// test/fixtures/real/sec (provenance in test/fixtures/real/PROVENANCE.md): the members are the
// recorded API bodies byte for byte, as SEC's archives hold them. Members made here for the
// edge cases (an empty-facts document, a document re-keyed to another CIK, a page that is not
// JSON, a damaged member, an overflow page) are marked where they are made.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FinancialReport, Security } from '../../src/domain/model.js';
import type { BulkBatch, BulkContext } from '../../src/sources/bulk.js';
import { HttpClient } from '../../src/sources/http.js';
import type { ProgressPatch } from '../../src/sources/progress.js';
import { SEC_BULK_NOTE, SEC_BULK_SKIP, SEC_JSON_LIMITS, SecBulkReader } from '../../src/sources/sec/bulk.js';
import { downloadSecArchives, SEC_DOWNLOAD_REFUSED } from '../../src/sources/sec/bulk-download.js';
import { parseCompanyTickers, SEC_SKIP, type TickerEntry } from '../../src/sources/sec/parse.js';
import { SecSource } from '../../src/sources/sec/source.js';
import { ZipReadError } from '../../src/sources/shared/zip-stream.js';
import { real, startUpstream } from '../e2e/upstream.js';
import { context, loopback, memoryLog, type Reply, zipOf, type ZipEntry } from './helpers.js';

const M = 1_000_000;
const APPLE = 'sec/companyfacts_CIK0000320193_AAPL.json.gz';
const TESLA = 'sec/companyfacts_CIK0001318605_TSLA.json.gz';
const MARVELL = 'sec/companyfacts_CIK0001835632_MRVL.json.gz';
const APPLE_SUB = 'sec/submissions_CIK0000320193_AAPL.json.gz';
const MARVELL_SUB = 'sec/submissions_CIK0001835632_MRVL.json.gz';
const TSMC = 'sec/companyfacts_CIK0001046179_TSM.EXCERPT.json';

const tickers: TickerEntry[] = parseCompanyTickers(JSON.parse(real('sec/company_tickers.json.gz').toString('utf8')))!;

type FactsDoc = { cik: number; entityName: string; facts: Record<string, Record<string, { units: Record<string, { form: string }[]> }>> };
const doc = (path: string): FactsDoc => JSON.parse(real(path).toString('utf8')) as FactsDoc;
/** A real document under another CIK (made here: the facts unchanged, `cik` and `entityName` replaced). */
const rekeyed = (path: string, cik: number, entityName: string): string => JSON.stringify({ ...doc(path), cik, entityName });

interface Run {
  batches: BulkBatch[];
  skips: Record<string, number>;
  notes: Record<string, number>;
  examples: Record<string, string | undefined>;
  progress: ProgressPatch[];
  error: unknown;
}

/** Reads everything the reader yields, keeping its skips and progress; an error ends the run and is kept. */
async function run(reader: SecBulkReader, onBatch?: (batch: BulkBatch, progress: readonly ProgressPatch[]) => void): Promise<Run> {
  const out: Run = { batches: [], skips: {}, notes: {}, examples: {}, progress: [], error: null };
  const ctx: BulkContext = {
    asOf: '2026-11-25',
    log: memoryLog(),
    progress: (p) => void out.progress.push(p),
    skip: (reason, example, count = 1) => {
      out.skips[reason] = (out.skips[reason] ?? 0) + count;
      if (!(reason in out.examples)) out.examples[reason] = example;
    },
    note: (reason, count = 1) => {
      out.notes[reason] = (out.notes[reason] ?? 0) + count;
    },
  };
  try {
    for await (const batch of reader.read(ctx)) {
      out.batches.push(batch);
      onBatch?.(batch, out.progress);
    }
  } catch (err) {
    out.error = err;
  }
  return out;
}

const reportsOf = (r: Run): FinancialReport[] => r.batches.flatMap((b) => b.data.reports ?? []);
const securitiesOf = (r: Run): Security[] => r.batches.flatMap((b) => b.data.securities ?? []);
const cikName = (cik: number): string => `CIK${String(cik).padStart(10, '0')}.json`;

describe('SecBulkReader on archives built from the real recordings', () => {
  let dir: string;
  // The universe: the three recorded companies plus listed companies that stand for the edge cases.
  const only = ['AAPL', 'TSLA', 'MRVL', 'MSFT', 'NVDA', 'AMZN', 'TSM', 'GOOG', 'IBM'];
  let damagedAmazon: Uint8Array;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sec-bulk-'));
    // Made here: bytes that are no deflate stream, written as Amazon's member data.
    damagedAmazon = new Uint8Array(64).fill(0xff);
    const facts: ZipEntry[] = [
      { name: cikName(320193), content: real(APPLE) },
      { name: 'README.txt', content: 'not a company' },
      { name: cikName(1318605), content: real(TESLA) },
      // Made here: a CIK in no ticker list.
      { name: cikName(9_999_999_999), content: rekeyed(MARVELL, 9_999_999_999, 'UNLISTED CO') },
      { name: cikName(1835632), content: real(MARVELL) },
      // Made here: Microsoft's member with no facts, as the archive holds for entities without XBRL financials.
      { name: cikName(789019), content: JSON.stringify({ cik: 789019, entityName: 'MICROSOFT CORP', facts: {} }) },
      // Made here: a page that is not JSON.
      { name: cikName(1045810), content: '<html><body>Request Rate Threshold Exceeded</body></html>' },
      // Made here: a damaged member (its data is no deflate stream).
      { name: cikName(1018724), content: '{"cik":1018724,"facts":{}}', data: damagedAmazon },
      // TSMC's recorded companyfacts (an excerpt of its concepts): a foreign private issuer, 20-F only, in TWD.
      { name: cikName(1046179), content: real(TSMC).toString('utf8') },
      // Made here: Marvell's facts re-keyed to Alphabet (GOOGL and GOOG share its CIK).
      { name: cikName(1652044), content: rekeyed(MARVELL, 1652044, 'Alphabet Inc.') },
      // IBM (listed) has no member.
    ];
    writeFileSync(join(dir, 'companyfacts.zip'), zipOf(facts));
    const submissions: ZipEntry[] = [
      { name: cikName(320193), content: real(APPLE_SUB) },
      // Made here: Apple's overflow page, named as its submissions' filings.files[0].name says.
      { name: 'CIK0000320193-submissions-001.json', content: JSON.stringify({ accessionNumber: ['0000320193-15-000009'], form: ['8-K'] }) },
      { name: cikName(1835632), content: real(MARVELL_SUB) },
      // Made here: a CIK in no ticker list.
      { name: cikName(2), content: JSON.stringify({ cik: '0000000002', exchanges: ['NYSE'], sicDescription: 'X', fiscalYearEnd: '1231' }) },
    ];
    writeFileSync(join(dir, 'submissions.zip'), zipOf(submissions));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives exactly the reports and Security the API adapter gives for Apple, Tesla and Marvell', async () => {
    const upstream = await startUpstream();
    try {
      const api = await new SecSource({ userAgent: 'Example Research admin@example.com', dataBaseUrl: upstream.base, wwwBaseUrl: upstream.base, tickers: ['AAPL', 'TSLA', 'MRVL'] }).ingest(
        context({ asOf: '2026-11-25' }),
      );
      const bulk = await run(new SecBulkReader({ dir, tickers, onlyTickers: only, batchCompanies: 2 }));
      assert.equal(bulk.error, null);
      // One report per 10-Q/10-K (and amendment) with figures: 68 Apple, 47 Tesla, 21 Marvell filings in the recordings;
      // and a version of an earlier period per later filing whose comparatives restate it: 7 Apple, 11 Tesla, 1 Marvell.
      // (Apple's FY2012 10-K and its first two FY2013 10-Qs, before its first bonds of May 2013, carry debt and interest
      // expense 0 as proven from its history (docs/calculations.md, "Debt"): the 0s its later comparatives state are no
      // restatement of them.)
      for (const [code, count] of [['AAPL', 68 + 7], ['TSLA', 47 + 11], ['MRVL', 21 + 1]] as const) {
        const apiReports = (api.data.reports ?? []).filter((r) => r.code === code);
        assert.equal(apiReports.length, count, code);
        assert.deepEqual(reportsOf(bulk).filter((r) => r.code === code), apiReports, code);
        assert.deepEqual(securitiesOf(bulk).filter((s) => s.code === code), (api.data.securities ?? []).filter((s) => s.code === code), code);
      }
      // The filings the parser passes over are counted alike by both ways in.
      for (const [reason, n] of Object.entries(api.skipped ?? {})) assert.equal(bulk.skips[reason], n, reason);
      // Both read Apple's dated former names from its submissions (test/sources/sec-real.test.ts derives the spans);
      // Marvell's submissions list none, Tesla has no submissions recorded.
      const appleNames = [
        { market: 'US', code: 'AAPL', name: 'APPLE COMPUTER INC', from: '1994-01-26', until: '2007-01-10' },
        { market: 'US', code: 'AAPL', name: 'APPLE INC', from: '2007-01-10', until: '2019-08-05' },
      ];
      assert.deepEqual(api.data.formerNames, appleNames);
      assert.deepEqual(bulk.batches.flatMap((b) => b.data.formerNames ?? []), appleNames);
    } finally {
      await upstream.close();
    }
  });

  it('exact figures from the raw rows, placement from submissions or from the facts', async () => {
    const bulk = await run(new SecBulkReader({ dir, tickers, onlyTickers: only }));
    const find = (code: string, fy: number, q: number): FinancialReport[] => reportsOf(bulk).filter((r) => r.code === code && r.fiscalYear === fy && r.fiscalQuarter === q);
    // Apple, 10-Q 0000320193-26-000006 filed 2026-01-30: RevenueFromContractWithCustomerExcludingAssessedTax
    // {start 2025-09-28, end 2025-12-27, val 143756000000}; NetIncomeLoss same period 42097000000; Assets
    // {end 2025-12-27, val 379297000000}. 91 days: Q1 of the year that ends September 2026 = FY2026.
    assert.deepEqual(
      find('AAPL', 2026, 1).map((r) => [r.periodEnd, r.disclosedOn, r.revenue, r.netIncome, r.totalAssets]),
      [['2025-12-27', '2026-01-30', 143_756 * M, 42_097 * M, 379_297 * M]],
    );
    // Tesla, 10-Q 0000950170-22-019867 filed 2022-10-24: Revenues {start 2022-01-01, end 2022-09-30, val 57144000000}
    // (the year to date: Q3 is 273 days; the three-month row 21454000000 is not the report's).
    assert.deepEqual(find('TSLA', 2022, 3).map((r) => [r.periodEnd, r.revenue]), [['2022-09-30', 57_144 * M]]);
    // Marvell, 10-K 0001835632-25-000057 filed 2025-03-12: RevenueFromContractWithCustomerExcludingAssessedTax
    // {start 2024-02-04, end 2025-02-01, val 5767300000}, NetIncomeLoss -885000000.
    assert.deepEqual(find('MRVL', 2025, 4).map((r) => [r.periodEnd, r.revenue, r.netIncome]), [['2025-02-01', 5_767.3 * M, -885 * M]]);
    const securities = new Map(securitiesOf(bulk).map((s) => [s.code, s]));
    // Apple's submissions: exchanges ["Nasdaq"], sic "3571" (Electronic Computers: Hardware), fiscalYearEnd "0926" (September).
    assert.deepEqual(securities.get('AAPL'), { market: 'US', code: 'AAPL', name: 'Apple Inc.', exchange: 'NASDAQ', sector: 'Hardware', currency: 'USD', fiscalYearEndMonth: 9, source: 'sec' });
    // Marvell's: sic "3674" (Semiconductors & Related Devices: Semiconductors), fiscalYearEnd "0130" (January).
    assert.deepEqual(securities.get('MRVL'), { market: 'US', code: 'MRVL', name: 'Marvell Technology, Inc.', exchange: 'NASDAQ', sector: 'Semiconductors', currency: 'USD', fiscalYearEndMonth: 1, source: 'sec' });
    // No submissions member for Tesla: exchange US, sector Unclassified, the year end of its 10-Ks (December 31).
    assert.deepEqual(securities.get('TSLA'), { market: 'US', code: 'TSLA', name: 'Tesla, Inc.', exchange: 'US', sector: 'Unclassified', currency: 'USD', fiscalYearEndMonth: 12, source: 'sec' });
    // Alphabet lists GOOGL then GOOG; limited to GOOG, GOOG is its ticker (the API adapter's rule). Marvell's
    // facts under it: January year end, no submissions member.
    assert.equal(securities.get('GOOG')?.fiscalYearEndMonth, 1);
    // TSMC, a foreign private issuer (20-F only, TWD): served like the others, its figures in USD at each filing's
    // own convenience rate. 20-F 0001193125-21-118512 filed 2021-04-16: ifrs-full:Revenue 2020 = TWD 1,339,254,800,000
    // and USD 47,694,300,000, so its revenue in USD is the filer's own figure (docs/calculations.md).
    assert.deepEqual(
      { ...securities.get('TSM'), filerBasis: { ...securities.get('TSM')?.filerBasis, usdRates: securities.get('TSM')?.filerBasis?.usdRates.map((r) => r.disclosedOn) } },
      {
        ...{ market: 'US', code: 'TSM', name: 'TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD', exchange: 'US', sector: 'Unclassified', currency: 'USD', fiscalYearEndMonth: 12, source: 'sec' },
        filerBasis: { annualForm: '20-F', reportingCurrency: 'TWD', usdRates: ['2018-04-19', '2019-04-17', '2020-04-15', '2021-04-16'] },
      },
    );
    assert.deepEqual(find('TSM', 2020, 4).map((r) => [r.periodEnd, r.disclosedOn, Math.round(r.revenue ?? 0)]), [['2020-12-31', '2021-04-16', 47_694.3 * M]]);
    assert.deepEqual([...securities.keys()].sort(), ['AAPL', 'GOOG', 'MRVL', 'TSLA', 'TSM']);
  });

  it('share classes: the first listed ticker of a CIK, as the API adapter takes it', async () => {
    const bulk = await run(new SecBulkReader({ dir, tickers }));
    // Without a limit every CIK of the list is listed: Alphabet as GOOGL (listed before GOOG).
    assert.deepEqual(securitiesOf(bulk).map((s) => s.code).sort(), ['AAPL', 'GOOGL', 'MRVL', 'TSLA', 'TSM']);
    // 7,919 CIKs in the recorded list; 8 of them have a member (AAPL, TSLA, MRVL, MSFT, NVDA, AMZN, TSM, Alphabet).
    assert.equal(bulk.skips[SEC_BULK_SKIP.noMember], 7_919 - 8);
  });

  it('skips and counts what it cannot take, by stable reasons, and reads the rest', async () => {
    const bulk = await run(new SecBulkReader({ dir, tickers, onlyTickers: only }));
    const memberSkips = Object.fromEntries(Object.entries(bulk.skips).filter(([r]) => r !== 'filing whose period is not a fiscal quarter'));
    assert.deepEqual(memberSkips, {
      [SEC_BULK_SKIP.unknownName]: 1, // README.txt
      [SEC_SKIP.emptyFacts]: 1, // Microsoft
      [SEC_BULK_SKIP.notJson]: 1, // NVIDIA's HTML page
      [SEC_BULK_SKIP.corrupt]: 1, // Amazon's damaged member
      [SEC_BULK_SKIP.noMember]: 1, // IBM
    });
    assert.equal(bulk.examples[SEC_BULK_SKIP.unknownName], 'README.txt');
    assert.equal(bulk.examples[SEC_BULK_SKIP.notJson], 'CIK0001045810.json');
    assert.equal(bulk.examples[SEC_BULK_SKIP.corrupt], 'CIK0001018724.json');
    // Passed over by design, by name: notes, not failures.
    assert.deepEqual(bulk.notes, {
      [SEC_BULK_NOTE.unlistedFacts]: 1, // CIK9999999999
      [SEC_BULK_NOTE.unlistedSubmissions]: 1, // CIK0000000002
      [SEC_BULK_NOTE.overflowPage]: 1, // CIK0000320193-submissions-001.json
    });
  });

  it('a member past the size cap is skipped and counted, the rest read', async () => {
    // Uncompressed sizes: Apple 3,709,629 and Tesla 2,999,120 bytes; Marvell 1,277,340 (and the re-keyed copy about the same).
    const bulk = await run(new SecBulkReader({ dir, tickers, onlyTickers: ['AAPL', 'TSLA', 'MRVL'], limits: { maxMemberBytes: 2_000_000 } }));
    assert.equal(bulk.error, null);
    assert.equal(bulk.skips[SEC_BULK_SKIP.tooLarge], 2);
    assert.deepEqual(securitiesOf(bulk).map((s) => s.code), ['MRVL']);
  });

  it('reports progress: the submissions members, then companies of the listed CIKs, with bytes inflated', async () => {
    const bulk = await run(new SecBulkReader({ dir, tickers, onlyTickers: ['AAPL', 'TSLA', 'MRVL'] }));
    assert.deepEqual(bulk.progress[0], { phase: 'reading', unit: 'members', done: 0, total: 3, bytes: 0, note: 'submissions.zip' });
    const last = bulk.progress.at(-1);
    // Inflated: the three companyfacts members, 3,709,629 + 2,999,120 + 1,277,340 = 7,986,089 bytes.
    assert.deepEqual(last, { phase: 'done', unit: 'companies', done: 3, total: 3, bytes: 7_986_089, note: null });
  });
});

describe('SecBulkReader: memory stays bounded', () => {
  it('yields as it reads: 300 members, each batch arrives before the next member is inflated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-bulk-many-'));
    try {
      // Re-keyed copies of Marvell's real document (made here for scale), cut to four concepts to keep the test quick.
      const body = doc(MARVELL);
      const gaap = body.facts['us-gaap'] ?? {};
      const small = { ...body, facts: { dei: body.facts['dei'], 'us-gaap': Object.fromEntries(['RevenueFromContractWithCustomerExcludingAssessedTax', 'NetIncomeLoss', 'Assets', 'StockholdersEquity'].map((c) => [c, gaap[c]])) } };
      const many: TickerEntry[] = [];
      const entries: ZipEntry[] = [];
      for (let i = 1; i <= 300; i += 1) {
        many.push({ cik: 5_000_000 + i, ticker: `COPY${i}`, title: `Copy ${i}` });
        entries.push({ name: cikName(5_000_000 + i), content: JSON.stringify({ ...small, cik: 5_000_000 + i }) });
      }
      writeFileSync(join(dir, 'companyfacts.zip'), zipOf(entries));
      const seenAtBatch: number[] = [];
      const result = await run(new SecBulkReader({ dir, tickers: many, batchCompanies: 25 }), (_batch, progress) => {
        // Companies read so far when the batch reached its consumer: the reader has not read ahead.
        const done = progress.filter((p) => p.done !== undefined).at(-1)?.done;
        seenAtBatch.push(done ?? -1);
      });
      assert.equal(result.error, null);
      // 300 companies in batches of 25: 12 batches, each handed over as its 25th company is read.
      assert.deepEqual(seenAtBatch, [25, 50, 75, 100, 125, 150, 175, 200, 225, 250, 275, 300]);
      assert.deepEqual(result.batches.map((b) => b.data.securities?.length), Array<number>(12).fill(25));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SecBulkReader: many members passed over by name', () => {
  it('20,000 members of unlisted CIKs (a central directory past 1 MiB) are counted, the listed ones before and after them read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-bulk-unlisted-'));
    try {
      const entries: ZipEntry[] = [{ name: cikName(1835632), content: real(MARVELL) }];
      // Made here: 20,000 members of CIKs in no ticker list; 20,000 x (46 + 18) = 1,280,000 bytes of directory.
      for (let i = 1; i <= 20_000; i += 1) entries.push({ name: cikName(3_000_000 + i), content: '{}' });
      entries.push({ name: cikName(320193), content: real(APPLE) });
      writeFileSync(join(dir, 'companyfacts.zip'), zipOf(entries));
      const result = await run(new SecBulkReader({ dir, tickers, onlyTickers: ['MRVL', 'AAPL'] }));
      assert.equal(result.error, null);
      assert.deepEqual(securitiesOf(result).map((s) => s.code), ['MRVL', 'AAPL']);
      assert.equal(result.notes[SEC_BULK_NOTE.unlistedFacts], 20_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SecBulkReader: a broken archive', () => {
  let dir: string;
  let whole: Uint8Array;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sec-bulk-broken-'));
    whole = zipOf([
      { name: cikName(320193), content: real(APPLE) },
      { name: cikName(1318605), content: real(TESLA) },
      { name: cikName(1835632), content: real(MARVELL) },
    ]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const reader = (batchCompanies = 200): SecBulkReader => new SecBulkReader({ dir, tickers, onlyTickers: ['AAPL', 'TSLA', 'MRVL'], batchCompanies });

  it('an HTML page instead of companyfacts.zip is refused as a whole: ZipReadError "not a ZIP", nothing yielded', async () => {
    writeFileSync(join(dir, 'companyfacts.zip'), '<!DOCTYPE html><html><head><title>SEC.gov | Request Rate Threshold Exceeded</title></head></html>');
    const result = await run(reader());
    assert.ok(result.error instanceof ZipReadError);
    assert.equal(result.error.reason, 'not a ZIP');
    assert.equal(result.batches.length, 0);
  });

  it('a truncated companyfacts.zip (its directory at the end is gone): ZipReadError "truncated or corrupt ZIP"', async () => {
    writeFileSync(join(dir, 'companyfacts.zip'), whole.subarray(0, Math.floor(whole.length / 2)));
    const result = await run(reader());
    assert.ok(result.error instanceof ZipReadError);
    assert.equal(result.error.reason, 'truncated or corrupt ZIP');
  });

  it('a directory entry broken part way: what was read is yielded, then the break is thrown', async () => {
    // The central directory's third entry (after two of 46 + 18 name bytes) loses its signature.
    const broken = Buffer.from(whole);
    const directoryOffset = broken.readUInt32LE(broken.length - 22 + 16);
    broken.writeUInt32LE(0, directoryOffset + 2 * (46 + 18));
    writeFileSync(join(dir, 'companyfacts.zip'), broken);
    const result = await run(reader(200));
    assert.ok(result.error instanceof ZipReadError);
    assert.equal(result.error.reason, 'truncated or corrupt ZIP');
    // Apple and Tesla, read before the break, are handed over in the batch being filled.
    assert.deepEqual(securitiesOf(result).map((s) => s.code), ['AAPL', 'TSLA']);
  });

  it('a broken submissions.zip stops the read before anything is yielded (reading on would misplace every company)', async () => {
    writeFileSync(join(dir, 'companyfacts.zip'), whole);
    writeFileSync(join(dir, 'submissions.zip'), '<html>Not Found</html>');
    try {
      const result = await run(reader());
      assert.ok(result.error instanceof ZipReadError);
      assert.equal(result.error.reason, 'not a ZIP');
      assert.equal(result.batches.length, 0);
    } finally {
      rmSync(join(dir, 'submissions.zip'));
    }
  });

  it("a listed company whose submissions member cannot be read is not placed (the API adapter skips it too); the rest are", async () => {
    writeFileSync(join(dir, 'companyfacts.zip'), whole);
    writeFileSync(
      join(dir, 'submissions.zip'),
      zipOf([
        { name: cikName(320193), content: real(APPLE_SUB) },
        // Made here: Tesla's submissions answered with a page that is not JSON.
        { name: cikName(1318605), content: '<html>Service Unavailable</html>' },
      ]),
    );
    try {
      const result = await run(reader());
      assert.equal(result.error, null);
      assert.deepEqual(securitiesOf(result).map((s) => [s.code, s.exchange]), [['AAPL', 'NASDAQ'], ['MRVL', 'US']]);
      assert.equal(result.skips[SEC_BULK_SKIP.notJson], 1);
      assert.equal(result.examples[SEC_BULK_SKIP.notJson], 'CIK0001318605.json');
      assert.equal(result.skips[SEC_BULK_SKIP.placementUnreadable], 1);
      assert.equal(result.examples[SEC_BULK_SKIP.placementUnreadable], 'TSLA (CIK 1318605)');
    } finally {
      rmSync(join(dir, 'submissions.zip'));
    }
  });

  it('stops at the next member once its signal is aborted, after the batch it handed over', async () => {
    writeFileSync(join(dir, 'companyfacts.zip'), whole);
    const controller = new AbortController();
    const codes: string[] = [];
    let error: unknown = null;
    const ctx: BulkContext = { asOf: '2026-11-25', signal: controller.signal, log: memoryLog(), progress: () => undefined, skip: () => undefined };
    try {
      for await (const batch of reader(1).read(ctx)) {
        codes.push(...(batch.data.securities ?? []).map((s) => s.code));
        controller.abort();
      }
    } catch (err) {
      error = err;
    }
    assert.deepEqual(codes, ['AAPL']);
    assert.equal((error as Error | null)?.name, 'AbortError');
  });

  it('a member nested 1,000,000 arrays deep (2 MB inflated, 2 KB on disk) is skipped at the 65th level, the rest read', async () => {
    // Made here: Tesla's member replaced by a million "[" and a million "]" (JSON.parse would build them all).
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const zip = zipOf([
      { name: cikName(320193), content: real(APPLE) },
      { name: cikName(1318605), content: deep },
      { name: cikName(1835632), content: real(MARVELL) },
    ]);
    assert.ok(zip.length < 400_000, `${zip.length} bytes on disk`);
    writeFileSync(join(dir, 'companyfacts.zip'), zip);
    const result = await run(reader());
    assert.equal(result.error, null);
    assert.equal(SEC_JSON_LIMITS.maxDepth, 64);
    assert.equal(result.skips[SEC_BULK_SKIP.tooDeep], 1);
    assert.equal(result.examples[SEC_BULK_SKIP.tooDeep], 'CIK0001318605.json');
    assert.deepEqual(securitiesOf(result).map((s) => s.code), ['AAPL', 'MRVL']);
  });

  it('members past the count caps are skipped: 2,000,001 empty objects (6 MB inflated), 16,000,001 zeros (32 MB); the rest read', async () => {
    // Made here: Apple's member one array of empty objects, Tesla's one array of zeros.
    const zip = zipOf([
      { name: cikName(320193), content: `[${'{},'.repeat(2_000_000)}{}]` },
      { name: cikName(1318605), content: `[${'0,'.repeat(16_000_000)}0]` },
      { name: cikName(1835632), content: real(MARVELL) },
    ]);
    assert.ok(zip.length < 200_000, `${zip.length} bytes on disk`);
    writeFileSync(join(dir, 'companyfacts.zip'), zip);
    const result = await run(reader());
    assert.equal(result.error, null);
    assert.deepEqual([SEC_JSON_LIMITS.maxContainers, SEC_JSON_LIMITS.maxValues], [2_000_000, 16_000_000]);
    assert.equal(result.skips[SEC_BULK_SKIP.tooManyValues], 2);
    assert.deepEqual(securitiesOf(result).map((s) => s.code), ['MRVL']);
  });

  it('no companyfacts.zip in the folder: ZipReadError "missing archive"', async () => {
    rmSync(join(dir, 'companyfacts.zip'), { force: true });
    const result = await run(reader());
    assert.ok(result.error instanceof ZipReadError);
    assert.equal(result.error.reason, 'missing archive');
  });
});

describe('downloadSecArchives against a loopback server', () => {
  const UA = 'Example Research admin@example.com';
  const FACTS = '/Archives/edgar/daily-index/xbrl/companyfacts.zip';
  const SUBS = '/Archives/edgar/daily-index/bulkdata/submissions.zip';
  const factsZip = zipOf([{ name: cikName(1835632), content: real(MARVELL) }]);
  const subsZip = zipOf([{ name: cikName(1835632), content: real(MARVELL_SUB) }]);
  const factsDate = 'Tue, 24 Nov 2026 08:12:40 GMT';
  const subsDate = 'Tue, 24 Nov 2026 07:55:02 GMT';
  const http = (): HttpClient => new HttpClient({ source: 'sec', fetch });

  it('streams both archives to disk with the User-Agent, keeps Last-Modified as the vintage, then asks If-Modified-Since', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-dl-'));
    const server = await loopback((req) => {
      const since = req.headers['if-modified-since'];
      const [body, date] = req.url.pathname === FACTS ? [factsZip, factsDate] : req.url.pathname === SUBS ? [subsZip, subsDate] : [null, ''];
      if (body === null) return { status: 404 };
      if (since !== undefined && Date.parse(since) >= Date.parse(date)) return { status: 304 };
      return { headers: { 'content-type': 'application/zip', 'content-length': String(body.length), 'last-modified': date }, body };
    });
    try {
      const progress: ProgressPatch[] = [];
      const first = await downloadSecArchives(http(), dir, { wwwBaseUrl: server.base, fetch, userAgent: UA, progress: (p) => void progress.push(p) });
      assert.deepEqual(first.files, [join(dir, 'companyfacts.zip'), join(dir, 'submissions.zip')]);
      // The older of the two Last-Modified dates.
      assert.equal(first.vintage, '2026-11-24T07:55:02.000Z');
      assert.deepEqual(readFileSync(join(dir, 'companyfacts.zip')), Buffer.from(factsZip));
      assert.deepEqual(readFileSync(join(dir, 'submissions.zip')), Buffer.from(subsZip));
      assert.equal(statSync(join(dir, 'companyfacts.zip')).mtime.toISOString(), '2026-11-24T08:12:40.000Z');
      assert.ok(server.requests.every((r) => r.headers['user-agent'] === UA && r.headers['if-modified-since'] === undefined));
      assert.deepEqual(progress[0], { phase: 'downloading', unit: 'bytes', done: 0, total: factsZip.length, bytes: 0, note: 'companyfacts.zip' });
      assert.deepEqual(progress.at(-2), { done: subsZip.length, bytes: factsZip.length + subsZip.length });
      assert.deepEqual(progress.at(-1), { phase: 'done', bytes: factsZip.length + subsZip.length, note: null });
      assert.ok(!existsSync(join(dir, 'companyfacts.zip.part')));

      const second = await downloadSecArchives(http(), dir, { wwwBaseUrl: server.base, fetch, userAgent: UA, progress: () => undefined });
      assert.deepEqual(second, first);
      assert.deepEqual(server.requests.slice(2).map((r) => [r.url.pathname, r.headers['if-modified-since']]), [
        [FACTS, factsDate],
        [SUBS, subsDate],
      ]);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an HTML page or a truncated body is refused and counted; the copy on disk stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-dl-bad-'));
    const html = '<!DOCTYPE html><html><body>Your Request Originates from an Undeclared Automated Tool</body></html>';
    let mode: 'html' | 'cut' = 'html';
    const server = await loopback((req): Reply => {
      if (req.url.pathname === FACTS && mode === 'html') return { headers: { 'content-type': 'text/html' }, body: html };
      if (req.url.pathname === FACTS) return { headers: { 'content-length': String(factsZip.length), 'last-modified': factsDate }, body: factsZip, cut: 100 };
      return { headers: { 'content-type': 'text/html' }, body: html };
    });
    try {
      // No earlier copy of companyfacts.zip: nothing to read, the refusal is thrown.
      await assert.rejects(
        downloadSecArchives(http(), dir, { wwwBaseUrl: server.base, fetch, userAgent: UA, progress: () => undefined }),
        (err: unknown) => err instanceof ZipReadError && err.reason === 'not a ZIP',
      );
      assert.ok(!existsSync(join(dir, 'companyfacts.zip')) && !existsSync(join(dir, 'companyfacts.zip.part')));

      // An earlier copy (vintage 2026-11-20): a truncated fresh one is refused and counted, the copy kept;
      // submissions.zip answered with an HTML page is refused and counted.
      writeFileSync(join(dir, 'companyfacts.zip'), factsZip);
      const earlier = new Date('2026-11-20T08:00:00Z');
      utimesSync(join(dir, 'companyfacts.zip'), earlier, earlier);
      mode = 'cut';
      const skips: [string, string | undefined][] = [];
      const result = await downloadSecArchives(http(), dir, { wwwBaseUrl: server.base, fetch, userAgent: UA, progress: () => undefined, skip: (r, e) => void skips.push([r, e]) });
      assert.deepEqual(skips, [
        [SEC_DOWNLOAD_REFUSED.truncated, 'companyfacts.zip'],
        ['not a ZIP', 'submissions.zip'],
      ]);
      assert.deepEqual(result, { files: [join(dir, 'companyfacts.zip')], vintage: '2026-11-20T08:00:00.000Z' });
      assert.deepEqual(readFileSync(join(dir, 'companyfacts.zip')), Buffer.from(factsZip));
      assert.ok(!existsSync(join(dir, 'companyfacts.zip.part')) && !existsSync(join(dir, 'submissions.zip')));
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a download past the size cap is refused without being written, declared or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-dl-big-'));
    let declare = true;
    // Without content-length the answer is sent chunked: the cap is then enforced while streaming.
    const server = await loopback((): Reply => ({ headers: { 'last-modified': factsDate, ...(declare ? { 'content-length': String(factsZip.length) } : {}) }, body: factsZip }));
    try {
      for (const declared of [true, false]) {
        declare = declared;
        await assert.rejects(
          downloadSecArchives(http(), dir, { wwwBaseUrl: server.base, fetch, userAgent: UA, progress: () => undefined, maxBytes: 1_000 }),
          (err: unknown) =>
            err instanceof ZipReadError &&
            err.reason === SEC_DOWNLOAD_REFUSED.tooLarge &&
            (declared ? err.message.includes(`declares ${factsZip.length} bytes`) : err.message.includes('more than 1000 bytes')),
        );
        assert.ok(!existsSync(join(dir, 'companyfacts.zip')) && !existsSync(join(dir, 'companyfacts.zip.part')));
      }
      assert.equal(server.requests.at(-1)?.url.pathname, FACTS);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
