// The terms each upstream source is used under: one table, read by the start banner, `npm run
// cli -- sources`, health's source list and the table in docs/sources.md (a test checks that the
// docs table is this one). Where a term could not be checked against the provider's own page
// (the project's reference corpus holds no copy of it) the entry says `unverified` rather than
// guess.

/** Whether the terms allow a use: `yes`, `no`, `conditions` (see the line), or `unverified`. */
export type Permission = 'yes' | 'no' | 'conditions' | 'unverified';

export interface SourceTerms {
  /** The adapter's name, as stamped in every record's `source`. */
  source: string;
  /** What the service takes from it. */
  supplies: string;
  /** The licence or terms, by the name the provider gives them. */
  terms: string;
  /** Where they are published. */
  url: string;
  commercialUse: Permission;
  redistribution: Permission;
  attribution: 'required' | 'not required' | 'unverified';
  /** One short line for the start banner, the CLI and health. */
  line: string;
}

export const SOURCE_TERMS: readonly SourceTerms[] = [
  {
    source: 'opendart',
    supplies: 'KR financial statements, the filing list, company records, the bulk statement files',
    terms: 'OpenDART terms of use (Financial Supervisory Service)',
    url: 'https://opendart.fss.or.kr',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'OpenDART terms of use (opendart.fss.or.kr); commercial use and redistribution not verified here',
  },
  {
    source: 'fsc',
    supplies: 'KR daily prices, listed shares and market cap of every KOSPI/KOSDAQ stock',
    terms: 'data.go.kr licence of 금융위원회_주식시세정보 (KOGL type 4: attribution, non-commercial, no modification, as issue #37 states it)',
    url: 'https://www.data.go.kr/data/15094808/openapi.do',
    commercialUse: 'no',
    redistribution: 'conditions',
    attribution: 'required',
    line: 'data.go.kr 금융위원회_주식시세정보: non-commercial use, unmodified, with attribution (KOGL type 4)',
  },
  {
    source: 'krx',
    supplies: 'KR investor net buying by foreigners and institutions; optionally whole-market prices',
    terms: 'KRX Data Marketplace (data.krx.co.kr) member terms of use',
    url: 'https://data.krx.co.kr',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'KRX Data Marketplace member terms (data.krx.co.kr), accepted by the operator (KRX_MARKETPLACE_ACCEPT_TERMS=yes); a member-only site, not a published API',
  },
  {
    source: 'krx-openapi',
    supplies: 'KR daily prices, listed shares and market cap of every KOSPI/KOSDAQ stock',
    terms: 'KRX Open API terms of use (제6조 ②: non-commercial purposes only, no charge to third parties for the results; 제8조 ④: 10,000 requests a key a day)',
    url: 'https://openapi.krx.co.kr',
    commercialUse: 'no',
    redistribution: 'conditions',
    attribution: 'unverified',
    line: 'KRX Open API terms (openapi.krx.co.kr): non-commercial purposes only, no charge to third parties for the results',
  },
  {
    source: 'kis',
    supplies: 'KR investor net buying by foreigners and institutions (brokerage API)',
    terms: 'KIS Developers terms of service (Korea Investment & Securities)',
    url: 'https://apiportal.koreainvestment.com',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'KIS Developers terms (apiportal.koreainvestment.com); commercial use and redistribution not verified here',
  },
  {
    source: 'sec',
    supplies: 'US financial statements (companyfacts), filings, tickers, shares outstanding',
    terms: 'SEC EDGAR: U.S. government information in the public domain; fair access policy (10 requests a second, declared User-Agent)',
    url: 'https://www.sec.gov/os/accessing-edgar-data',
    commercialUse: 'yes',
    redistribution: 'yes',
    attribution: 'not required',
    line: 'SEC EDGAR: public domain, under the fair access policy (sec.gov/os/accessing-edgar-data)',
  },
  {
    source: 'polygon',
    supplies: 'US daily prices (grouped daily bars)',
    terms: 'Polygon.io terms of service and the plan bought',
    url: 'https://polygon.io/terms',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'Polygon.io terms of service and plan (polygon.io/terms); commercial use and redistribution not verified here',
  },
  {
    source: 'customs',
    supplies: 'KR exports and imports, totals and by sector',
    terms: 'data.go.kr licence of the 관세청 datasets',
    url: 'https://www.data.go.kr/data/15157941/openapi.do',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'data.go.kr 관세청 datasets licence; not verified here',
  },
  {
    source: 'ecos',
    supplies: 'USD/KRW rates',
    terms: 'Bank of Korea ECOS Open API terms of use',
    url: 'https://ecos.bok.or.kr/api',
    commercialUse: 'unverified',
    redistribution: 'unverified',
    attribution: 'unverified',
    line: 'Bank of Korea ECOS Open API terms (ecos.bok.or.kr/api); not verified here',
  },
  {
    source: 'ecb',
    supplies: 'euro foreign exchange reference rates (USD per unit of a foreign filer\'s reporting currency, crossed through EUR)',
    terms: 'ECB website Disclaimer & copyright: the reference rates are published for information; reuse with the ECB named as the source (the copyright paragraph not checked here against a copy of the page)',
    url: 'https://www.ecb.europa.eu/home/disclaimer/html/index.en.html',
    commercialUse: 'unverified',
    redistribution: 'conditions',
    attribution: 'required',
    line: 'ECB euro foreign exchange reference rates (ecb.europa.eu): reuse with the source named; published for information',
  },
  {
    source: 'demo',
    supplies: 'the embedded generated universe (every dataset)',
    terms: 'generated by this project; no third-party terms',
    url: 'docs/demo-data.md',
    commercialUse: 'yes',
    redistribution: 'yes',
    attribution: 'not required',
    line: 'generated by this project: no third-party terms',
  },
];

const BY_SOURCE = new Map(SOURCE_TERMS.map((t) => [t.source, t]));

/** The terms of a source by name; undefined for a name the table does not hold. */
export function termsOf(source: string): SourceTerms | undefined {
  return BY_SOURCE.get(source);
}

/** The short line of a source's terms, or a line saying none are recorded. */
export function termsLine(source: string): string {
  return BY_SOURCE.get(source)?.line ?? 'no terms recorded for this source';
}

/** The table as docs/sources.md prints it (one row a source). */
export function termsTableMarkdown(): string {
  const head = '| Source | Supplies | Licence or terms | Published at | Commercial use | Redistribution | Attribution |\n| --- | --- | --- | --- | --- | --- | --- |\n';
  return head + SOURCE_TERMS.map((t) => `| ${t.source} | ${t.supplies} | ${t.terms} | ${t.url} | ${t.commercialUse} | ${t.redistribution} | ${t.attribution} |`).join('\n') + '\n';
}
