// What the first-start rehearsal's replica carries besides the industrial 10-K filers and KR
// companies (bench/replica): financial-sector companies in their own statement layouts (real
// 2025 Q1 rows), OpenDART's dividend section (alotMatter.json) and US foreign filers with
// ifrs-full facts on 20-F / 40-F, each checked against the rows and recordings it is made from.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import type { FinancialReport } from '../../src/domain/model.js';
import { usdSeriesOf } from '../../src/domain/reference-rates.js';
import { parseReferenceRates } from '../../src/sources/ecb/parse.js';
import { OpenDartBulkReader } from '../../src/sources/opendart/bulk.js';
import { stockMetrics } from '../../src/domain/snapshot.js';
import { discreteQuarters } from '../../src/domain/ttm.js';
import { NO_REFERENCE_RATE, parseCompanyFacts } from '../../src/sources/sec/parse.js';
import { zipMembers, zipMembersOfBuffer } from '../../src/sources/shared/zip-stream.js';
import { DartApi, ecbRatesZip, SecApi } from '../../bench/replica/api.js';
import { prepareBulk } from '../../bench/replica/bulk.js';
import { financialRows, financialTemplateCode } from '../../bench/replica/financial.js';
import { buildUniverse, realJson } from '../../bench/replica/universe.js';
import { tempDir } from '../support/tmp.js';

type Row = Record<string, string>;
const body = (answer: { body: string | Uint8Array }): unknown => JSON.parse(typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString('utf8'));

// Scale 0.005: round(13.5) = 14 KR copies (index 12 the one financial company, a bank: 12 % 25
// = 12, floor(12 / 25) % 4 = 0 -> 은행), 30 US copies (index 7 and 17 and 27 foreign filers:
// floor(7 / 10) % 5 = 0 -> 20-F in EUR at 0.92 a USD; 17 -> JPY; 27 -> TWD).
const universe = buildUniverse(0.005);
const today = '2026-11-25';
const M = 1_000_000;

describe('financial-sector companies', () => {
  const bank = universe.kr[12];
  assert.ok(bank);

  it('one copy in 25, a bank here, with a bank\'s KSIC code in company.json', () => {
    assert.deepEqual(universe.kr.filter((c) => c.financial !== null).map((c) => [c.index, c.financial]), [[12, '은행']]);
    const company = body(new DartApi(universe, () => today).company(new URLSearchParams({ corp_code: bank.corpCode }))) as Row;
    assert.equal(company['induty_code'], '64110');
  });

  it('fnlttSinglAcntAll answers the real bank rows: balances as filed, the annual report\'s income four times the recorded quarter\'s', () => {
    const answer = body(new DartApi(universe, () => today).statementsOf(new URLSearchParams({ corp_code: bank.corpCode, bsns_year: '2025', reprt_code: '11011', fs_div: 'CFS' }))) as { status: string; list: Row[] };
    assert.equal(answer.status, '000');
    const code = financialTemplateCode(bank, true);
    assert.match(code ?? '', /^\[\d{6}\]$/);
    // The real rows (2025_1분기보고서_0N_..._은행_연결): 항목코드 col 11, amount col 13.
    const real = (member: '01' | '03' | '04', id: string): number => Number((financialRows(bank, member, true).find((r) => r[10] === id)?.[12] ?? 'NaN').replace(/,/g, ''));
    const api = (sj: string, id: string): string | undefined => answer.list.find((r) => r['sj_div'] === sj && r['account_id'] === id)?.['thstrm_amount'];
    assert.equal(api('BS', 'ifrs-full_Assets'), String(real('01', 'ifrs-full_Assets')));
    assert.equal(api('BS', 'ifrs-full_Equity'), String(real('01', 'ifrs-full_Equity')));
    assert.equal(api('CIS', 'ifrs-full_ProfitLoss'), String(real('03', 'ifrs-full_ProfitLoss') * 4));
    assert.equal(api('CIS', 'ifrs-full_BasicEarningsLossPerShare'), String(real('03', 'ifrs-full_BasicEarningsLossPerShare') * 4));
    // A bank's layout has no current assets.
    assert.equal(api('BS', 'ifrs-full_CurrentAssets'), undefined);
    assert.deepEqual([...new Set(answer.list.map((r) => r['sj_div']))], ['BS', 'CIS', 'CF']);
  });

  it('the bulk files carry it in the bank members only, re-keyed, and not in the general ones', async () => {
    const tmp = tempDir('replica-financial-');
    try {
      const bulk = prepareBulk(universe, today, join(tmp.dir, 'cache'));
      const page = String(bulk.dartListPage().body);
      const bs = [...page.matchAll(/'(2025_1Q_BS_[0-9]+\.zip)'/g)][0]?.[1] as string;
      const codes = new Map<string, Set<string>>();
      let bankRows: string[][] = [];
      for await (const m of zipMembers((bulk.dartZip(bs) as { file: string }).file)) {
        const rows = iconv.decode(await m.bytes(), 'cp949').trim().split('\n').slice(1).map((l) => l.split('\t'));
        codes.set(m.name, new Set(rows.map((r) => r[1] as string)));
        if (m.name.includes('_은행_연결_')) bankRows = rows;
      }
      const general = [...codes].find(([name]) => /01_재무상태표_\d{8}\.txt$/.test(name))?.[1];
      assert.ok(general && general.size > 0 && !general.has('[900012]'));
      assert.deepEqual([...(codes.get([...codes.keys()].find((n) => n.includes('_은행_연결_')) as string) ?? [])], ['[900012]']);
      // The real rows re-keyed: the same 항목코드 and amounts, the copy's code and period.
      assert.deepEqual(bankRows.map((r) => [r[10], r[12]]), financialRows(bank, '01', true).map((r) => [r[10], r[12]]));
      assert.ok(bankRows.every((r) => r[7] === '2025-03-31' && r[8] === '1분기보고서'));
    } finally {
      tmp.cleanup();
    }
  });
});

describe('financial-sector companies, read back by the service\'s bulk reader', () => {
  const bank = universe.kr[12];
  assert.ok(bank);

  it('all four periods of a year: balances as filed, income and cash flow the recorded quarter\'s times the quarters to date', async () => {
    const tmp = tempDir('replica-financial-read-');
    try {
      const bulk = prepareBulk(universe, today, join(tmp.dir, 'cache'));
      const skipped: Record<string, number> = {};
      const reports: FinancialReport[] = [];
      const reader = new OpenDartBulkReader({ dir: join(bulk.summary.dir, 'dart'), fromYear: 2025, toYear: 2025 });
      const ctx = { asOf: today, log: { info: () => undefined, warn: () => undefined }, progress: () => undefined, skip: (reason: string, _e?: string, n = 1) => void (skipped[reason] = (skipped[reason] ?? 0) + n) };
      for await (const batch of reader.read(ctx)) reports.push(...(batch.data.reports ?? []).filter((r) => r.code === bank.stockCode));
      assert.deepEqual(skipped, {});
      // The real rows of the bank the copy is made from (2025_1분기보고서_0N_..._은행_연결): 항목코드 col 11, amount col 13.
      const real = (member: '01' | '03' | '04', id: string): number => Number((financialRows(bank, member, true).find((r) => r[10] === id)?.[12] ?? 'NaN').replace(/,/g, ''));
      const netIncome = real('03', 'ifrs-full_ProfitLossAttributableToOwnersOfParent');
      const eps = real('03', 'ifrs-full_BasicEarningsLossPerShare');
      assert.ok(Number.isFinite(netIncome) && Number.isFinite(eps));
      assert.deepEqual(
        reports.map((r) => [r.fiscalQuarter, r.consolidated, r.totalAssets, r.netIncome, r.basicEps]),
        [1, 2, 3, 4].map((q) => [q, true, real('01', 'ifrs-full_Assets'), netIncome * q, eps * q]),
      );
    } finally {
      tmp.cleanup();
    }
  });
});

describe('alotMatter.json (배당에 관한 사항)', () => {
  const dart = new DartApi(universe, () => today);

  it('answers every filed periodic report with the recorded rows, re-keyed; the yield the dividend over the base price', () => {
    const recorded = realJson<{ list: Row[] }>('opendart/alotMatter_00126380_2020_11013.json').list;
    for (const c of universe.kr) {
      const answer = body(dart.alotMatter(new URLSearchParams({ corp_code: c.corpCode, bsns_year: '2025', reprt_code: '11011' }))) as { status: string; list: Row[] };
      assert.equal(answer.status, '000');
      // Row for row the recording's items and fields, the copy's keys.
      assert.deepEqual(answer.list.map((r) => [r['se'], r['stock_knd'], Object.keys(r)]), recorded.map((r) => [r['se'], r['stock_knd'], Object.keys(r)]));
      assert.ok(answer.list.every((r) => r['corp_code'] === c.corpCode && r['corp_name'] === c.name));
      const dps = answer.list.find((r) => r['se'] === '주당 현금배당금(원)' && r['stock_knd'] === '보통주')?.['thstrm'] as string;
      const yieldPct = answer.list.find((r) => r['se'] === '현금배당수익률(%)' && r['stock_knd'] === '보통주')?.['thstrm'] as string;
      if (dps === '-') assert.equal(yieldPct, '-');
      else assert.equal(yieldPct, ((Number(dps.replace(/,/g, '')) * 100) / c.basePrice).toFixed(2));
    }
    // Seven in ten pay: of the 14 copies, those whose hash says so.
    const paying = universe.kr.filter((c) => (body(dart.alotMatter(new URLSearchParams({ corp_code: c.corpCode, bsns_year: '2025', reprt_code: '11011' }))) as { list: Row[] }).list.some((r) => r['se'] === '주당 현금배당금(원)' && r['thstrm'] !== '-'));
    assert.ok(paying.length > 0 && paying.length < universe.kr.length, `${paying.length} of ${universe.kr.length} pay`);
  });

  it('013 for a report not filed yet (2026 annual on 2026-11-25)', () => {
    const c = universe.kr[0];
    assert.ok(c);
    assert.equal((body(dart.alotMatter(new URLSearchParams({ corp_code: c.corpCode, bsns_year: '2026', reprt_code: '11011' }))) as { status: string }).status, '013');
  });
});

describe('US foreign filers', () => {
  const sec = new SecApi(universe, () => today);
  type Fact = { start?: string; end: string; val: number; accn: string; fp: string; form: string };
  type Facts = { facts: Record<string, Record<string, { units: Record<string, Fact[]> }>> };

  it('one US listing in ten, in turn EUR, JPY, TWD, USD (20-F) and CAD (40-F)', () => {
    assert.deepEqual(universe.us.filter((c) => c.foreign !== null).map((c) => [c.index, c.foreign?.form, c.foreign?.currency]), [[7, '20-F', 'EUR'], [17, '20-F', 'JPY'], [27, '20-F', 'TWD']]);
  });

  it('companyfacts: ifrs-full facts in the reporting currency, the template\'s USD annual facts times the rate, on 20-F; half-years on 6-K', () => {
    const c = universe.us[7];
    assert.ok(c);
    // Index 7: 7 % 21 = 7, the Procter & Gamble template (bench/replica/universe.ts), whose facts hold 10-K/A filings.
    assert.equal(c.template.ticker, 'PG');
    const facts = body(sec.companyFacts(c.cik) as { body: Uint8Array }) as Facts;
    assert.deepEqual(Object.keys(facts.facts), ['dei', 'ifrs-full']);
    const template = realJson<Facts>(c.template.facts);
    const annual = (template.facts['us-gaap']?.['NetIncomeLoss']?.units['USD'] ?? []).filter((f) => f.form === '10-K');
    const ifrs = facts.facts['ifrs-full']?.['ProfitLossAttributableToOwnersOfParent']?.units['EUR'] ?? [];
    assert.ok(annual.length > 0);
    for (const f of annual) {
      const copy = ifrs.find((x) => x.accn === f.accn && x.end === f.end && x.start === f.start);
      assert.equal(copy?.val, Math.round(f.val * 0.92), `${f.accn} ${f.end}`);
      assert.equal(copy?.form, '20-F');
    }
    const forms = new Set(Object.values(facts.facts['ifrs-full'] ?? {}).flatMap((concept) => Object.values(concept.units).flat().map((x) => `${x.form}:${x.fp}`)));
    for (const f of forms) assert.ok(['20-F:FY', '20-F/A:FY', '6-K:H1'].includes(f), f);
    assert.ok(forms.has('20-F:FY') && forms.has('6-K:H1'));
    // No domestic form is left in any taxonomy (dei included): 10-K/A is 20-F/A.
    const all = new Set(Object.values(facts.facts).flatMap((taxonomy) => Object.values(taxonomy).flatMap((concept) => Object.values(concept.units).flat().map((x) => x.form))));
    for (const f of all) assert.ok(!/^10-|^8-K/.test(f), f);
    assert.ok(all.has('20-F/A'), 'the template\'s 10-K/A facts as 20-F/A');
    // Half-year flows run about six months.
    for (const x of ifrs.filter((f) => f.fp === 'H1' && f.start !== undefined)) assert.ok((Date.parse(x.end) - Date.parse(x.start as string)) / 86_400_000 >= 160);
  });

  it('a JPY filer gives a USD convenience translation of each filing\'s own period, the template\'s USD figure; the EUR filer none', () => {
    const jpy = universe.us[17];
    assert.ok(jpy?.foreign?.convenience);
    const facts = body(sec.companyFacts(jpy.cik) as { body: Uint8Array }) as Facts;
    const units = facts.facts['ifrs-full']?.['ProfitLossAttributableToOwnersOfParent']?.units ?? {};
    const own = units['JPY'] ?? [];
    const usd = units['USD'] ?? [];
    assert.ok(usd.length > 0);
    // Each USD figure: the latest period of its filing, with the same period in yen at 150 a dollar.
    for (const u of usd) {
      const latest = own.filter((x) => x.accn === u.accn).reduce((a, x) => (x.end > a ? x.end : a), '');
      assert.equal(u.end, latest, u.accn);
      assert.equal(own.find((x) => x.accn === u.accn && x.end === u.end && x.start === u.start)?.val, Math.round(u.val * 150));
    }
    const eur = body(sec.companyFacts((universe.us[7] as { cik: number }).cik) as { body: Uint8Array }) as Facts;
    assert.equal(eur.facts['ifrs-full']?.['ProfitLossAttributableToOwnersOfParent']?.units['USD'], undefined);
  });

  it('Costco\'s foreign copy: its "receivables, net" (ReceivablesNetCurrent) as trade and other receivables, its 24-week half-year on 6-K, a CCC', () => {
    // Index 1037 at scale 0.175 (1,050 US copies): 1037 % 21 = 8, the Costco template; 1037 % 10 = 7, a foreign
    // filer; floor(1037 / 10) % 5 = 3, the USD 20-F filer (rate 1: the template's figures unconverted).
    const big = buildUniverse(0.175);
    const c = big.us[1037];
    assert.ok(c);
    assert.deepEqual([c.template.ticker, c.foreign?.form, c.foreign?.currency], ['COST', '20-F', 'USD']);
    const facts = body(new SecApi(big, () => today).companyFacts(c.cik) as { body: Uint8Array }) as Facts;
    // Costco tags no AccountsReceivable... concept: its balance sheet's "receivables, net" is ReceivablesNetCurrent,
    // 3,060 at 2025-02-16 in its Q2 10-Q 0000909832-25-000015 (USD million).
    const receivables = facts.facts['ifrs-full']?.['TradeAndOtherCurrentReceivables']?.units['USD'] ?? [];
    assert.deepEqual(receivables.filter((f) => f.accn === '0000909832-25-000015').map((f) => [f.end, f.val, f.form, f.fp]), [['2024-09-01', 2_721 * M, '6-K', 'H1'], ['2025-02-16', 3_060 * M, '6-K', 'H1']]);
    const reports = parseCompanyFacts(facts, c.template.ticker)?.reports ?? [];
    const h1 = reports.find((r) => r.disclosedOn === '2025-03-13' && r.periodEnd === '2025-02-16');
    assert.ok(h1);
    // The same 10-Q, 2024-09-02..2025-02-16 (167 days, 12 + 12 weeks): Revenues 125,874, CostOfGoodsAndServicesSold
    // 109,853; at 2025-02-16 InventoryNet 18,754, AccountsPayableCurrent 18,610.
    assert.deepEqual([h1.fiscalQuarter, h1.revenue, h1.costOfSales, h1.receivables, h1.inventory, h1.payables], [2, 125_874 * M, 109_853 * M, 3_060 * M, 18_754 * M, 18_610 * M]);
    // TTM to the half-year = FY2024 (10-K 0000909832-24-000049, 2023-09-04..2024-09-01) + H1 FY2025 - H1 FY2024
    // (2023-09-04..2024-02-18, the 10-Q's comparative column): revenue 254,453 + 125,874 - 116,241 = 264,086;
    // cost of sales 222,358 + 109,853 - 101,597 = 230,614.
    // CCC = 3,060 x 365 / 264,086 + 18,754 x 365 / 230,614 - 18,610 x 365 / 230,614 = 4.2293 + 0.2279 = 4.457 days.
    const ccc = stockMetrics(discreteQuarters(reports, '2025-03-13'), null, 'USD').ccc;
    assert.ok(ccc.value !== null && Math.abs(ccc.value - ((3_060 * 365) / 264_086 + ((18_754 - 18_610) * 365) / 230_614)) < 1e-9, String(ccc.value));
    assert.equal(Math.round(ccc.value * 1000) / 1000, 4.457);
  });

  it('submissions: annual reports on 20-F, no 10-K, 10-Q or proxy statement', () => {
    const c = universe.us[7];
    assert.ok(c);
    const subs = JSON.parse(sec.submissionsOf(c)) as { filings: { recent: Record<string, string[]> } };
    const forms = new Set(subs.filings.recent['form']);
    assert.ok(forms.has('20-F') && forms.has('6-K'));
    for (const f of ['10-K', '10-Q', 'DEF 14A', '8-K']) assert.ok(!forms.has(f), f);
    const n = subs.filings.recent['form']?.length;
    for (const list of Object.values(subs.filings.recent)) assert.equal(list.length, n, 'the parallel arrays keep their length');
  });
});

describe('US domestic filers', () => {
  const sec = new SecApi(universe, () => today);

  it('copies every template in turn: the 30 copies at scale 0.005 cover all 21 recorded companies', () => {
    // Index i copies template i % 21 (bench/replica/universe.ts, US_TEMPLATES): indexes 0..20 one each.
    const copied = new Set(universe.us.map((c) => c.template.ticker));
    assert.equal(copied.size, 21);
    assert.deepEqual(universe.us.slice(0, 4).map((c) => c.template.ticker), ['AAPL', 'TSLA', 'MRVL', 'XOM']);
    assert.equal(universe.us[21]?.template.ticker, 'AAPL');
  });

  it('a template without recorded submissions: its SIC code and exchange, the year end and filings from its facts (CONSTRUCTED)', () => {
    const c = universe.us[3];
    assert.ok(c && c.foreign === null);
    const subs = JSON.parse(sec.submissionsOf(c)) as { cik: string; sic: string; exchanges: string[]; fiscalYearEnd: string; tickers: string[]; filings: { recent: Record<string, string[]> } };
    // Exxon Mobil (SIC 2911, the 2009q3 Financial Statement Data Set's sub.txt); its latest 10-K
    // year ends 2024-12-31; its facts come from 66 10-K, 10-Q and 8-K filings (and amendments),
    // the newest the Q2 2025 10-Q 0000034088-25-000042 filed 2025-08-04 for the period to 2025-06-30.
    assert.deepEqual([subs.cik, subs.sic, subs.exchanges, subs.fiscalYearEnd, subs.tickers], ['0009000003', '2911', ['NYSE'], '1231', [c.ticker]]);
    const recent = subs.filings.recent;
    assert.equal(recent['accessionNumber']?.length, 66);
    assert.deepEqual(['accessionNumber', 'filingDate', 'reportDate', 'form'].map((k) => recent[k]?.[0]), ['0000034088-25-000042', '2025-08-04', '2025-06-30', '10-Q']);
  });
});

describe('ECB reference rates (eurofxref-hist.zip)', () => {
  it("the real file's layout up to the day before today; the replica's EUR filer is converted at them, its figures back near the template's USD", async () => {
    const zip = ecbRatesZip(today).body as Uint8Array;
    const members: string[] = [];
    let text = '';
    for await (const m of zipMembersOfBuffer(zip)) {
      members.push(m.name);
      text = (await m.bytes()).toString('utf8');
    }
    assert.deepEqual(members, ['eurofxref-hist.csv']);
    const parsed = parseReferenceRates(text);
    assert.ok(parsed);
    // Newest first, the day before 2026-11-25; USD, JPY and CAD only (TWD is not published).
    assert.equal(parsed.latest, '2026-11-24');
    assert.deepEqual([...new Set(parsed.rates.map((r) => r.currency))].sort(), ['CAD', 'JPY', 'USD']);
    assert.equal(parsed.rates.some((r) => r.date === '2025-12-25' || r.date === '2026-01-01'), false);
    const c = universe.us[7];
    assert.ok(c && c.foreign?.currency === 'EUR');
    const answer = new SecApi(universe, () => today).companyFacts(c.cik);
    assert.ok(answer);
    const facts = JSON.parse(new TextDecoder().decode(answer.body as Uint8Array)) as unknown;
    const converted = parseCompanyFacts(facts, c.template.ticker, usdSeriesOf(parsed.rates));
    assert.ok(converted && converted.reports.length > 0);
    assert.equal(converted.skipped[NO_REFERENCE_RATE], undefined);
    // EUR figures are the template's USD x 0.92; the rates run around 1 / 0.92 (within 4 %): the template's USD figures within 5 %.
    const template = realJson<{ facts: Record<string, Record<string, { units: Record<string, { end: string; start?: string; val: number; form: string }[]> }>> }>(c.template.facts);
    const fy = converted.reports.filter((r) => r.fiscalQuarter === 4).at(-1);
    const usd = template.facts['us-gaap']?.['NetIncomeLoss']?.units['USD']?.find((f) => f.form === '10-K' && f.end === fy?.periodEnd && f.start !== undefined);
    assert.ok(fy?.netIncome && usd);
    assert.ok(Math.abs(fy.netIncome / usd.val - 1) < 0.05, `${fy.netIncome} against ${usd.val}`);
  });
});
