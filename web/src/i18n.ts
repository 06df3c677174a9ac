// Korean and English labels. Every visible word goes through t(); the language is kept in
// localStorage and defaults to Korean unless the browser asks for something else.

import { exportSectorKo, sectorKo } from '../../src/domain/sectors.js';

export type Lang = 'ko' | 'en';

const LANG_STORAGE = 'krus-dashboard.lang';

const LABELS = {
  appTitle: ['한·미 주식 데이터', 'KR/US Stock Data'],
  // the service's state (status.ts)
  status_loading: ['데이터를 불러오는 중입니다', 'Loading the data'],
  status_failed: ['데이터를 불러오지 못했습니다', 'Loading the data failed'],
  status_unavailable: ['일시적으로 이용할 수 없습니다', 'Temporarily unavailable'],
  status_degraded: ['일부 출처 갱신 실패 (이전 데이터 제공 중)', 'A source failed (the previous data is served)'],
  status_ready: ['준비됨', 'Ready'],
  phase_waiting: ['대기', 'waiting'],
  phase_listing: ['목록 읽는 중', 'listing'],
  phase_downloading: ['내려받는 중', 'downloading'],
  phase_reading: ['읽는 중', 'reading'],
  phase_calling: ['API 호출 중', 'calling'],
  phase_paced: ['일일 한도 소진, 대기', 'out of today\'s allowance'],
  phase_done: ['완료', 'done'],
  phase_failed: ['실패', 'failed'],
  statusCalls: ['오늘 {calls}회 호출', '{calls} calls today'],
  statusCallsOf: ['오늘 {calls} / {allowance}회 호출', '{calls} of {allowance} calls today'],
  statusEta: ['완료 예상 {at} (약 {left})', 'done by {at} (about {left})'],
  statusEtaUnknown: ['완료 시각 계산 중', 'ETA not known yet'],
  statusNextTry: ['다음 시도 {at}', 'next try {at}'],
  statusLastRun: ['마지막 실행 {at}', 'last run {at}'],
  coverage: ['커버리지', 'Coverage'],
  coverageMarket: ['{market} 점수 {scored} / 상장 {listed} ({complete}%), 가격 {priced}', '{market} {scored} of {listed} scored ({complete}%), {priced} priced'],
  navRankings: ['순위', 'Rankings'],
  navStock: ['종목', 'Stock'],
  navExports: ['수출', 'Exports'],
  navScreener: ['스크리너', 'Screener'],
  langToggle: ['English', '한국어'],
  apiKey: ['API 키', 'API key'],
  saveKey: ['저장', 'Save'],
  forgetKey: ['키 삭제', 'Forget key'],
  keyNeeded: ['API 키를 입력하세요. 키는 이 브라우저(localStorage)에만 저장됩니다.', 'Enter your API key. It is kept in this browser only (localStorage).'],
  keyOk: ['키 확인됨', 'Key valid'],
  keyChecking: ['키 확인 중…', 'Checking the key…'],
  keyRejected: ['API 키가 올바르지 않습니다. 키를 확인해 다시 입력하세요.', 'This API key is not valid. Check it and enter it again.'],
  plan_free: ['무료', 'free'],
  plan_paid: ['유료', 'paid'],
  // Errors by the service's documented codes (docs/architecture.md, src/kernel/errors.ts). The
  // Korean page says these; the English page shows the service's own detail, which is English.
  err_unauthorized: ['API 키가 올바르지 않습니다. 키를 확인해 다시 입력하세요.', 'This API key is not valid. Check it and enter it again.'],
  err_forbidden: ['이 키로는 할 수 없는 요청입니다.', 'This key may not make this request.'],
  err_not_found: ['찾는 항목이 없습니다.', 'Not found.'],
  err_invalid_parameter: ['요청 조건이 올바르지 않습니다 ({parameter}).', 'A parameter is not valid ({parameter}).'],
  err_invalid_sectors: [
    '알 수 없는 업종입니다. 업종명은 한글(반도체)이나 영문(Semiconductors)으로 쓰고, 여러 개는 | 로 구분하세요.',
    'An unknown sector. Name sectors in English (Semiconductors) or Korean (반도체), separated by |.',
  ],
  err_quota_exceeded: ['오늘 호출 한도를 모두 썼습니다. 한도가 초기화된 뒤 다시 시도하세요.', 'Today\'s call quota is used up; try again after it resets.'],
  err_rate_limited: ['요청이 너무 잦습니다. 잠시 후 다시 시도하세요.', 'Too many requests; try again in a moment.'],
  err_data_unavailable: ['데이터가 아직 준비되지 않았습니다. 위의 서비스 상태를 확인하세요.', 'The data is not ready yet; see the service state above.'],
  err_service_unavailable: ['서비스에 잠시 연결할 수 없습니다. 잠시 후 다시 시도하세요.', 'The service cannot be reached for now; try again in a moment.'],
  err_internal_error: ['서버에서 오류가 났습니다. 잠시 후 다시 시도하세요.', 'The server failed; try again in a moment.'],
  err_other: ['요청을 처리하지 못했습니다 (HTTP {status}).', 'The request failed (HTTP {status}).'],
  err_network: ['서버에 연결하지 못했습니다.', 'The server could not be reached.'],
  stockNotFound: [
    '코드 {code}인 종목이 없습니다. 위 검색창에 종목명, 초성, 코드 또는 티커를 입력해 찾아 보세요.',
    'No stock has the code {code}. Find it by name, code or ticker in the search box above.',
  ],
  fontNote: [
    '이 시스템에 한글 글꼴이 없어 한글 종목명이 네모로 보입니다. Noto Sans KR을 설치하세요 (Debian/Ubuntu: apt install fonts-noto-cjk).',
    'No Korean font on this system: Korean names show as boxes. Install Noto Sans KR (Debian/Ubuntu: apt install fonts-noto-cjk; macOS and Windows have one).',
  ],
  plan: ['요금제', 'plan'],
  callsToday: ['오늘 호출', 'calls today'],
  loading: ['불러오는 중…', 'Loading…'],
  error: ['오류', 'Error'],
  updatedAt: ['데이터 기준', 'Updated'],
  asOfLabel: ['기준일', 'As of'],
  asOfToday: ['오늘', 'Today'],
  asOfViewing: ['{date} 시점에 알려진 데이터를 보고 있습니다 (그날 이후의 공시와 가격은 쓰지 않음).', 'Showing the data as it was known on {date} (no filing or price after that day).'],
  asOfBack: ['오늘 데이터로', 'Back to today'],
  asOfAnswer: ['{date} 기준 · 마지막 거래일 {session} · 마지막 공시 {disclosure}', 'as of {date} · last session {session} · last disclosure {disclosure}'],
  source: ['출처', 'Source'],
  // rankings
  market: ['시장', 'Market'],
  bands: ['시가총액 구간', 'Market-cap bands'],
  both: ['한국+미국', 'KR+US'],
  rows: ['표시 행 수', 'Rows'],
  shownOf: ['표시 {shown} / 전체 {total}', 'Showing {shown} of {total}'],
  sortHint: ['열 제목을 누르면 정렬됩니다 (기본: 괴리율 내림차순).', 'Click a column title to sort (default: gap, highest first).'],
  formula: ['공식 (V3)', 'Formula (V3)'],
  disclaimer: ['고지', 'Disclaimer'],
  formula_score: ['점수', 'score'],
  formula_expectedReturn: ['기대수익률', 'expectedReturn'],
  formula_targetPrice: ['목표가', 'targetPrice'],
  formula_gap: ['괴리율', 'gap'],
  formula_backtest: ['백테스트', 'backtest'],
  bandThresholds: [
    '구간 — 한국: 메가 20조 이상, 초대형 5–20조, 대형 1–5조, 중형 3천억–1조, 소형 3천억 미만; 미국: 메가 $200B 이상, 초대형 $50–200B, 대형 $10–50B, 중형 $3–10B, 소형 $3B 미만.',
    'Bands — KR: mega ≥ KRW 20 tn, x-large KRW 5–20 tn, large KRW 1–5 tn, mid KRW 300 bn–1 tn, small < KRW 300 bn; US: mega ≥ $200B, x-large $50–200B, large $10–50B, mid $3–10B, small < $3B.',
  ],
  noBands: ['구간을 하나 이상 고르세요.', 'Choose at least one band.'],
  rank: ['#', '#'],
  ticker: ['코드', 'Code'],
  name: ['종목명', 'Name'],
  currency: ['통화', 'Currency'],
  band: ['구간', 'Band'],
  marketCap: ['시가총액', 'Market cap'],
  currentPrice: ['현재가', 'Price'],
  targetPrice: ['목표가', 'Target price'],
  gapPct: ['괴리율', 'Gap'],
  score: ['점수', 'Score'],
  yoy: ['순이익 YoY', 'NI YoY'],
  ttmNiEok: ['TTM 순이익', 'TTM net income'],
  supplyPct: ['수급', 'Supply'],
  momentumPct: ['모멘텀', 'Momentum'],
  band_mega: ['메가', 'Mega'],
  band_xlarge: ['초대형', 'X-large'],
  band_large: ['대형', 'Large'],
  band_mid: ['중형', 'Mid'],
  band_small: ['소형', 'Small'],
  // stock
  searchPlaceholder: ['종목명, 초성, 6자리 코드 또는 티커', 'Name, 6-digit code or ticker'],
  search: ['검색', 'Search'],
  searchNoMatch: ['일치하는 종목이 없습니다. 코드나 티커로 직접 조회해 보세요.', 'No match. Try the code or ticker directly.'],
  searchHint: [
    '한글·영문 종목명의 일부, 초성(ㅅㅅㅈㅈ), 코드 또는 티커로 모든 종목을 찾습니다.',
    'Finds every stock by part of its Korean or English name, its Korean initials (ㅅㅅㅈㅈ), its code or ticker.',
  ],
  stockPrompt: ['종목을 검색하세요.', 'Search for a stock.'],
  grade: ['등급', 'Grade'],
  scoreNote: ['점수 = 같은 시장 안에서 V3 점수의 백분위 (0–100)', 'Score = percentile of the V3 score within the market (0–100)'],
  v3Score: ['V3 점수', 'V3 score'],
  referenceQuarter: ['기준 분기', 'Quarter'],
  disclosedOn: ['공시일', 'Disclosed'],
  priceDate: ['가격일', 'Price date'],
  cohortSize: ['비교 종목 수', 'Cohort size'],
  noScore: ['점수 없음', 'No score'],
  snapshot: ['TTM 재무 스냅샷', 'TTM snapshot'],
  metric: ['지표', 'Metric'],
  value: ['값', 'Value'],
  group_valuation: ['밸류에이션', 'Valuation'],
  group_profitability: ['수익성', 'Profitability'],
  group_growth: ['성장성', 'Growth'],
  group_stability: ['안정성', 'Stability'],
  group_cashGeneration: ['현금창출력', 'Cash generation'],
  group_earningsQuality: ['이익의 질', 'Earnings quality'],
  group_perShare: ['주당 지표', 'Per share'],
  priceChart: ['주가', 'Price'],
  interval_day: ['일', 'Day'],
  interval_week: ['주', 'Week'],
  interval_month: ['월', 'Month'],
  lastBar: ['마지막 봉', 'Last bar'],
  close: ['종가', 'Close'],
  volume: ['거래량', 'Volume'],
  bars: ['봉', 'bars'],
  splitAdjusted: ['수정주가: 분할 {splits} 반영', 'Split-adjusted: {splits}'],
  valuationBand: ['밸류에이션 밴드', 'Valuation band'],
  bandExplain: [
    '가로선: 기간 전체의 5%·중앙값·95% 배수와 현재 배수. 세로 막대: 연도별 최저–최고, 가운데 눈금은 연도별 중앙값. 로그 눈금.',
    'Horizontal lines: the window’s 5th percentile, median, 95th percentile and the current multiple. Bars: each year’s min–max with its median tick. Log scale.',
  ],
  p5: ['5%', 'p5'],
  median: ['중앙값', 'Median'],
  p95: ['95%', 'p95'],
  min: ['최저', 'Min'],
  max: ['최고', 'Max'],
  current: ['현재', 'Current'],
  currentPercentile: ['현재 위치', 'Current position'],
  daysUsed: ['사용 일수', 'Days used'],
  daysExcluded: ['제외 일수', 'Days excluded'],
  since: ['시작일', 'Since'],
  percentiles: ['17개 지표 백분위', 'Percentiles of 17 metrics'],
  percentileNote: [
    '값이 클수록 백분위가 높습니다 (좋고 나쁨의 판단이 아님 — 예: PER이 높으면 비싼 것).',
    'A higher value gives a higher percentile (not a verdict: a high PER means expensive).',
  ],
  cohort_sector: ['업종', 'Sector'],
  cohort_market: ['시장', 'Market'],
  members: ['종목', 'stocks'],
  // exports
  tradeTotals: ['수출입 총액', 'Trade totals'],
  exports: ['수출', 'Exports'],
  imports: ['수입', 'Imports'],
  balance: ['무역수지', 'Balance'],
  exportsYoy: ['수출 YoY', 'Exports YoY'],
  importsYoy: ['수입 YoY', 'Imports YoY'],
  from: ['시작', 'From'],
  to: ['끝', 'To'],
  apply: ['적용', 'Apply'],
  window5y: ['5년', '5 years'],
  window10y: ['10년', '10 years'],
  window20y: ['20년', '20 years'],
  windowAll: ['전체 (1990-01~)', 'All (since 1990-01)'],
  month: ['월', 'Month'],
  windowTotal: ['기간 합계', 'Window total'],
  latestMonth: ['최근 월', 'Latest month'],
  topSectors: ['상위 업종 수출', 'Top export sectors'],
  sector: ['업종', 'Sector'],
  cumulative24m: ['24개월 누적', '24-month total'],
  latestExports: ['최근 월 수출', 'Latest month'],
  latestYoy: ['YoY', 'YoY'],
  top: ['상위', 'Top'],
  unitUsd: ['단위: 미국 달러', 'Unit: US dollars'],
  exportsBasis: ['{to}까지 24개월 수출 합계 순', 'Ranked by exports over the 24 months ending {to}'],
  // screener
  bound: ['조건', 'Bound'],
  exchange: ['거래소', 'Exchange'],
  everyExchange: ['전체', 'Every exchange'],
  sortBy: ['정렬', 'Sort by'],
  descending: ['높은 순', 'Highest first'],
  ascending: ['낮은 순', 'Lowest first'],
  boundNotNumber: ['{field}: 최솟값·최댓값은 숫자여야 합니다 (등급은 A+~D).', '{field}: min and max must be numbers (grades A+ to D for grade).'],
  droppedForNull: ['값이 없어 제외된 종목', 'Left out for having no value'],
  screenHint: [
    '조건은 모두 만족해야 하며(AND) 양 끝을 포함합니다. 단위는 지표의 단위입니다 (ROE 최소 10 = 10%). 업종은 한글(반도체)이나 영문(Semiconductors)으로 쓰고 | 로 구분합니다.',
    'Every bound must hold (AND), both ends inclusive, in the metric unit (ROE min 10 = 10 %). Name sectors in English or Korean, separated by |.',
  ],
  sectorPlaceholder: ['반도체|은행', 'Semiconductors|Banks'],
  mixedCurrency: [
    '한국+미국을 금액(시가총액, 현재가)으로 정렬하면 원과 달러 숫자를 그대로 비교합니다. 금액 순위는 한 시장씩 보세요.',
    'KR+US sorted by an amount (market cap, price) compares won and dollar figures as they are: rank amounts one market at a time.',
  ],
  chartAttribution: ['차트: TradingView Lightweight Charts™', 'Charts: TradingView Lightweight Charts™'],
  screenSortHint: ['열 제목을 누르면 전체 종목을 그 순서로 다시 조회합니다.', 'Click a column title to screen the whole universe in that order.'],
} as const satisfies Record<string, readonly [string, string]>;

export type LabelKey = keyof typeof LABELS;

/**
 * The V3 formula and the disclaimer in Korean: translations of V3_FORMULA (src/domain/v3.ts) and
 * DISCLAIMER (src/tools/get-rankings.ts), which the API answers in English. The Korean page
 * shows these, with the API's text on hover.
 */
export const FORMULA_KO: Readonly<Record<'score' | 'expectedReturn' | 'targetPrice' | 'gap' | 'backtest', string>> = {
  score:
    'score = max(0, min(yoy, 300) / 100) x sqrt(ttmNiEok) x (1 + supplyPct / 30) x (1 + momentum); 어느 인자든 음수가 되면(제곱근 아래 ttmNiEok <= 0 포함) 점수는 0입니다. ' +
    'yoy = (TTM 순이익 - 4분기 전 TTM 순이익) / |4분기 전 TTM 순이익| x 100, 순이익은 지배주주 귀속, TTM = 그날까지 공시된 최근 4개 분기. ' +
    'ttmNiEok = TTM 순이익(억 원; 미국 종목은 그날의 원/달러 환율로 환산). ' +
    'supplyPct: 한국 = (최근 20거래일 외국인 + 기관 순매수) / (같은 기간 거래대금) x 100; ' +
    '미국 = (최근 20거래일 동안 거래대금 x sign(종가 - 전일 종가)의 합) / (같은 기간 거래대금) x 100. ' +
    'momentum = (최근 분기 순이익 - 전년 같은 분기 순이익) / |전년 같은 분기 순이익|, 비율.',
  expectedReturn: 'expectedReturn = -2.25 + 1.05 x sqrt(score), 약 1년 기준 퍼센트.',
  targetPrice: 'targetPrice = currentPrice x (1 + gapPct / 100), 원 단위(한국) 또는 센트 단위(미국)로 반올림.',
  gap: 'gapPct = expectedReturn = -2.25 + 1.05 x sqrt(score): 현재가 대비 상승 여력(%); 표는 gapPct가 높은 순입니다.',
  backtest:
    '괴리율 인자(-2.25와 1.05)는 고정된 과거 기간에 한국 모든 시가총액 구간의 1년 수익률을 백테스트해 얻었습니다(그 백테스트의 기간과 데이터는 밝혀져 있지 않습니다). 상승 여력은 약 1년 기준입니다. ' +
    '같은 종류의 검증을 서비스의 데이터로, 각 리밸런싱일에 알려진 수치만으로 실행할 수 있습니다: npm run cli -- backtest --market KR --from 2016-01 --by score --top 20 --hold 12 (docs/calculations.md, "Backtest").',
};

export const DISCLAIMER_KO =
  '정보 제공용이며 투자 권유가 아닙니다. 점수, 목표가, 괴리율은 공개된 공식(V3)을 공시 수치에 적용한 결과이며 예측이나 추천이 아닙니다. 과거 백테스트 결과가 미래 수익을 보장하지 않습니다.';

const storage = stored();

let lang: Lang = initialLang();

/** Storage the page may lack: a sandboxed frame (the MCP Apps view) has no localStorage and throws on reaching it. */
function stored(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function initialLang(): Lang {
  const saved = storage?.getItem(LANG_STORAGE);
  if (saved === 'ko' || saved === 'en') return saved;
  return navigator.language.toLowerCase().startsWith('en') ? 'en' : 'ko';
}

export function currentLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  storage?.setItem(LANG_STORAGE, next);
  document.documentElement.lang = next;
}

/** The label in the current language, with {name} placeholders filled in. */
export function t(key: LabelKey, vars: Record<string, string | number> = {}): string {
  const text = LABELS[key][lang === 'ko' ? 0 : 1];
  return text.replace(/\{(\w+)\}/g, (_m, name: string) => String(vars[name] ?? `{${name}}`));
}

/** Labels looked up by a key built at run time (a band, a group, an interval). */
export function tDynamic(key: string): string {
  return key in LABELS ? t(key as LabelKey) : key;
}

const METRIC_LABELS: Record<string, readonly [string, string]> = {
  per: ['PER', 'PER'],
  pbr: ['PBR', 'PBR'],
  psr: ['PSR', 'PSR'],
  evEbit: ['EV/EBIT', 'EV/EBIT'],
  roe: ['ROE', 'ROE'],
  roic: ['ROIC', 'ROIC'],
  operatingMargin: ['영업이익률', 'Operating margin'],
  netMargin: ['순이익률', 'Net margin'],
  revenueYoy: ['매출 YoY', 'Revenue YoY'],
  operatingIncomeYoy: ['영업이익 YoY', 'Operating income YoY'],
  epsYoy: ['EPS YoY', 'EPS YoY'],
  eps: ['EPS (TTM)', 'EPS (TTM)'],
  dividendPerShare: ['주당배당금 (TTM)', 'Dividend per share (TTM)'],
  dividendPerShareFy: ['주당배당금 (최근 회계연도)', 'Dividend per share (last FY)'],
  dividendYield: ['배당수익률', 'Dividend yield'],
  netDebtRatio: ['순부채비율', 'Net-debt ratio'],
  interestCoverage: ['이자보상배율', 'Interest coverage'],
  currentRatio: ['유동비율', 'Current ratio'],
  operatingCashFlow: ['영업현금흐름', 'Operating cash flow'],
  fcfYield: ['FCF 수익률', 'FCF yield'],
  cfToNi: ['영업현금흐름/순이익', 'CF / NI'],
  ccc: ['현금전환주기', 'Cash conversion cycle'],
  v3Score: ['V3 점수', 'V3 score'],
  expectedReturn: ['기대수익률', 'Expected return'],
  gapPct: ['괴리율', 'Gap'],
  score: ['점수', 'Score'],
  grade: ['등급', 'Grade'],
  marketCap: ['시가총액', 'Market cap'],
  currentPrice: ['현재가', 'Price'],
  priceChange1m: ['1개월 등락률', '1-month change'],
  priceChange3m: ['3개월 등락률', '3-month change'],
  priceChange12m: ['12개월 등락률', '12-month change'],
};

/** A stock sector in the page's language: the Korean name the API gives (sectorKo), else the table's, else the English one. */
export function sectorName(sector: string, ko?: string | null): string {
  return lang === 'ko' ? (ko ?? sectorKo(sector) ?? sector) : sector;
}

/** An export sector in the page's language. */
export function exportSectorName(sector: string, ko?: string | null): string {
  return lang === 'ko' ? (ko ?? exportSectorKo(sector) ?? sector) : sector;
}

export function metricLabel(metric: string): string {
  const labels = METRIC_LABELS[metric];
  return labels === undefined ? metric : labels[lang === 'ko' ? 0 : 1];
}
