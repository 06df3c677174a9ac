// How many KR filers of the real bulk files have debt, receivables, inventory, payables, capex
// and cost of sales known: from a line of their own (the item rules alone), and with absence
// proven by a complete section (docs/calculations.md, "Debt"). Reads the real 2025 first-quarter
// members in ../shared/realdata/bulk/opendart (the financial-sector files whole, the general
// filers' balance sheet and cash flows as the kept excerpts) and, for cost of sales, the real
// 2016 first-quarter income statements (the general filers' 2025 ones are not kept).
//
//   node --import tsx scripts/measure-kr-sections.ts [--detail ITEM [--proven]]
//
// `--detail debt` (or receivables, inventory, payables, capex, costOfSales) lists each filer the
// item stays unknown for, with the lines of the section that decides it; `--proven` with it, each
// filer the item is proven 0 for.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FinancialReport } from '../src/domain/model.js';
import { BulkMemberReader, decodeBulkText, parseBulkMemberName, type CompanyPeriod, type Tally } from '../src/sources/opendart/bulk.js';
import { completeSections, NO_COMPLETE_SECTIONS, reportFromRows, sectionHeadOf } from '../src/sources/opendart/parse.js';

const DIR = join(process.env.REALDATA_DIR ?? '/work/shared/realdata', 'bulk', 'opendart');
const ITEMS = ['debt', 'receivables', 'inventory', 'payables', 'capex', 'costOfSales'] as const;
type Checked = (typeof ITEMS)[number];
const detail = process.argv.includes('--detail') ? (process.argv[process.argv.indexOf('--detail') + 1] as Checked) : null;
/** With `--proven`, the detail lists the filers whose item is proven 0 instead of those left unknown. */
const proven = process.argv.includes('--proven');

const tally: Tally = { skip: () => undefined, note: () => undefined };

function read(pattern: RegExp): CompanyPeriod[] {
  const into = new Map<string, CompanyPeriod>();
  for (const file of readdirSync(DIR).filter((f) => pattern.test(f)).sort()) {
    const name = file.replace(/\.EXCERPT-head-utf8/, '').replace(/\.gz$/, '');
    const member = parseBulkMemberName(name);
    if (member === null) throw new Error(`not a bulk member name: ${file}`);
    const text = decodeBulkText(gunzipSync(readFileSync(join(DIR, file))));
    if (text === null) throw new Error(`undecodable: ${file}`);
    const reader = new BulkMemberReader(name, member, into, tally);
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) if (!reader.line(lines[i] ?? '', i + 1)) break;
  }
  return [...into.values()];
}

interface Count {
  filers: number;
  /** Receivables, inventory and payables all known: CCC's balance-sheet inputs. */
  cccBalancesLine: number;
  cccBalancesKnown: number;
  line: Record<Checked, number>;
  known: Record<Checked, number>;
}

function measure(title: string, companies: readonly CompanyPeriod[], items: readonly Checked[], statements: readonly string[]): void {
  console.log(`\n${title}`);
  const count: Count = { filers: 0, cccBalancesLine: 0, cccBalancesKnown: 0, line: Object.fromEntries(ITEMS.map((i) => [i, 0])) as Record<Checked, number>, known: Object.fromEntries(ITEMS.map((i) => [i, 0])) as Record<Checked, number> };
  for (const c of companies) {
    for (const fsDiv of ['CFS', 'OFS'] as const) {
      const rows = fsDiv === 'CFS' ? c.consolidated : c.separate;
      if (!statements.every((sj) => rows.some((r) => r.sjDiv === sj || (sj === 'IS' && r.sjDiv === 'CIS')))) continue;
      const ctx = { code: c.code, fiscalYear: c.fiscalYear, fiscalQuarter: c.fiscalQuarter, periodEnd: c.periodEnd, fsDiv, disclosedOn: c.periodEnd };
      const before = reportFromRows(rows, ctx, NO_COMPLETE_SECTIONS);
      const after: FinancialReport = reportFromRows(rows, ctx);
      count.filers += 1;
      const cccInputs = ['receivables', 'inventory', 'payables'] as const;
      if (items.includes('inventory')) {
        if (cccInputs.every((i) => before[i] !== null)) count.cccBalancesLine += 1;
        if (cccInputs.every((i) => after[i] !== null)) count.cccBalancesKnown += 1;
      }
      for (const item of items) {
        if (before[item] !== null) count.line[item] += 1;
        if (after[item] !== null) count.known[item] += 1;
        if (detail === item && (proven ? before[item] === null && after[item] === 0 : after[item] === null)) {
          const sections = completeSections(rows, c.fiscalQuarter);
          console.log(`\n${c.code} ${c.name} ${fsDiv} ${JSON.stringify(sections)}`);
          let kind: string | null = null;
          for (const r of rows) {
            kind = sectionHeadOf(r) ?? kind;
            const wanted = item === 'capex' ? r.sjDiv === 'CF' && kind === 'investing' : item === 'costOfSales' ? r.sjDiv === 'IS' || r.sjDiv === 'CIS' : r.sjDiv === 'BS' && kind !== 'other';
            if (wanted || sectionHeadOf(r) !== null) console.log(`  ${r.sjDiv} ${kind ?? '-'} ${r.accountId} ${r.accountNm} ${r.thstrmAmount ?? ''}`);
          }
        }
      }
    }
  }
  console.log(`  ${count.filers} filer statements`);
  if (items.includes('inventory')) console.log(`  CCC balances (receivables, inventory and payables) from lines ${count.cccBalancesLine}   known ${count.cccBalancesKnown}`);
  for (const item of items) console.log(`  ${item.padEnd(12)} from a line ${String(count.line[item]).padStart(4)}   known ${String(count.known[item]).padStart(4)}   (+${count.known[item] - count.line[item]} proven 0)`);
}

const general2025 = read(/^2025_1분기보고서_0[14]_(재무상태표|현금흐름표)_2025\d{4}\.EXCERPT/);
measure('2025 Q1 general filers, balance sheet (excerpt)', general2025, ['debt', 'receivables', 'inventory', 'payables'], ['BS']);
measure('2025 Q1 general filers, cash flows (excerpt)', general2025, ['capex'], ['CF']);
const financial2025 = read(/^2025_1분기보고서_0[134]_.*_(금융기타|보험|은행|증권)(_연결)?_2025\d{4}\.txt\.gz$/);
measure('2025 Q1 financial-sector filers (whole files)', financial2025, ['debt', 'capex'], ['BS', 'CF']);
const income2016 = read(/^2016_1분기보고서_02_손익계산서(_연결)?_\d{8}\.txt\.gz$/);
measure('2016 Q1 general filers, income statements (02 members)', income2016, ['costOfSales'], ['IS']);
