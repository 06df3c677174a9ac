// Charts. Prices and trade totals use lightweight-charts (canvas, loaded on demand so the
// rankings page does not download it); the valuation band is a small SVG drawing because
// it is not a time series (see docs/web.md).

import type { IChartApi, ISeriesApi, Time } from 'lightweight-charts';
import { svg } from './dom.js';
import { num } from './format.js';
import { currentLang } from './i18n.js';
import type { Currency, Market, PriceBar, TradeTotal, ValuationBand } from './types.js';

const loadLibrary = () => import('lightweight-charts');

const GRID = '#eef0f3';
const TEXT = '#374151';

function chartLocale(): string {
  return currentLang() === 'ko' ? 'ko-KR' : 'en-US';
}

const MONTHS_EN = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The year, month and day of a bar's time as the charts give it (a 'YYYY-MM-DD' string here). */
function dateOf(time: Time): { y: number; m: number; d: number } {
  if (typeof time === 'string') {
    const [y = 0, m = 1, d = 1] = time.split('-').map(Number);
    return { y, m, d };
  }
  if (typeof time === 'number') {
    const date = new Date(time * 1000);
    return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
  }
  return { y: time.year, m: time.month, d: time.day };
}

/**
 * Time-axis labels that name what they mark in the page's language: a year (2026년 / 2026), a
 * month with its year (2026.03 / Mar '26), a day with its month (3월 15일 / Mar 15); never a
 * bare month whose year is off screen. The tick types are lightweight-charts' TickMarkType
 * (0 year, 1 month, 2 day of month); times of day are not drawn here (daily bars at most).
 */
function tickLabel(time: Time, type: number): string | null {
  const { y, m, d } = dateOf(time);
  const ko = currentLang() === 'ko';
  const mon = MONTHS_EN[m - 1] ?? String(m);
  switch (type) {
    case 0:
      return ko ? `${y}년` : String(y);
    case 1:
      return ko ? `${y}.${String(m).padStart(2, '0')}` : `${mon} '${String(y % 100).padStart(2, '0')}`;
    case 2:
      return ko ? `${m}월 ${d}일` : `${mon} ${d}`;
    default:
      return null;
  }
}

/** Room at each end of the time axis for half of its widest label, so none is cut at an edge. */
const EDGE_PX = 30;

/**
 * A fit that shows all `count()` bars with EDGE_PX of room at both ends (the library centres a
 * label on its bar, so a label on the first or last bar would be cut); it runs again whenever
 * the chart is resized. Call the returned function after new data.
 */
function edgeFit(chart: IChartApi, count: () => number): () => void {
  const fit = () => {
    const n = count();
    const width = chart.timeScale().width();
    if (n === 0 || width <= 2 * EDGE_PX) return;
    const pad = (EDGE_PX * Math.max(n - 1, 1)) / (width - 2 * EDGE_PX);
    chart.timeScale().setVisibleLogicalRange({ from: -pad, to: n - 1 + pad });
  };
  let last = 0;
  chart.timeScale().subscribeSizeChange((width) => {
    if (Math.abs(width - last) < 1) return;
    last = width;
    fit();
  });
  return fit;
}

/** Korean charts draw rises in red and falls in blue; US charts green and red. */
function upDownColors(market: Market): { up: string; down: string } {
  return market === 'KR' ? { up: '#d93d3d', down: '#2f6fd6' } : { up: '#1a9c5b', down: '#d93d3d' };
}

export interface PriceChart {
  setBars(bars: PriceBar[]): void;
  dispose(): void;
}

/** Candles in the top pane, volume in a smaller pane below. */
export async function priceChart(container: HTMLElement, market: Market, currency: Currency): Promise<PriceChart> {
  const { createChart, CandlestickSeries, HistogramSeries } = await loadLibrary();
  const colors = upDownColors(market);
  const chart: IChartApi = createChart(container, {
    autoSize: true,
    // No logo in the chart (it sat on the volume bars): the page links the attribution instead.
    layout: { textColor: TEXT, background: { color: '#ffffff' }, panes: { separatorColor: '#d1d5db' }, attributionLogo: false },
    grid: { vertLines: { color: GRID }, horzLines: { color: GRID } },
    timeScale: { borderColor: '#d1d5db', tickMarkFormatter: tickLabel },
    rightPriceScale: { borderColor: '#d1d5db' },
    // Month names on the time axis follow the page language, not the browser's.
    localization: { locale: chartLocale() },
  });
  const candles: ISeriesApi<'Candlestick'> = chart.addSeries(CandlestickSeries, {
    upColor: colors.up,
    downColor: colors.down,
    borderUpColor: colors.up,
    borderDownColor: colors.down,
    wickUpColor: colors.up,
    wickDownColor: colors.down,
    // Won without decimals and with thousands separators; dollars to the cent.
    priceFormat:
      currency === 'KRW'
        ? { type: 'custom', minMove: 1, formatter: (p: number) => num(p, 0) }
        : { type: 'custom', minMove: 0.01, formatter: (p: number) => num(p, 2) },
  });
  const volumes: ISeriesApi<'Histogram'> = chart.addSeries(HistogramSeries, { priceFormat: { type: 'volume' }, priceLineVisible: false }, 1);
  chart.panes()[0]?.setStretchFactor(3);
  chart.panes()[1]?.setStretchFactor(1);
  let count = 0;
  const fit = edgeFit(chart, () => count);
  return {
    setBars(bars) {
      candles.setData(bars.map((b) => ({ time: b.date, open: b.open, high: b.high, low: b.low, close: b.close })));
      volumes.setData(bars.map((b) => ({ time: b.date, value: b.volume, color: b.close >= b.open ? `${colors.up}99` : `${colors.down}99` })));
      count = bars.length;
      fit();
    },
    dispose: () => chart.remove(),
  };
}

/** Exports and imports as lines, the balance as a histogram below, by month. */
export async function tradeChart(container: HTMLElement, rows: TradeTotal['rows']): Promise<() => void> {
  const { createChart, LineSeries, HistogramSeries } = await loadLibrary();
  const billions = (v: number) => `$${num(v / 1e9, 1)}B`;
  const chart = createChart(container, {
    autoSize: true,
    layout: { textColor: TEXT, background: { color: '#ffffff' }, panes: { separatorColor: '#d1d5db' }, attributionLogo: false },
    grid: { vertLines: { color: GRID }, horzLines: { color: GRID } },
    timeScale: { tickMarkFormatter: tickLabel },
    localization: { locale: chartLocale(), priceFormatter: billions },
  });
  const ko = currentLang() === 'ko';
  const exports = chart.addSeries(LineSeries, { color: '#2f6fd6', lineWidth: 2, title: ko ? '수출' : 'EX' });
  const imports = chart.addSeries(LineSeries, { color: '#e0892b', lineWidth: 2, title: ko ? '수입' : 'IM' });
  const balance = chart.addSeries(HistogramSeries, { priceLineVisible: false }, 1);
  chart.panes()[0]?.setStretchFactor(3);
  chart.panes()[1]?.setStretchFactor(1);
  const time = (month: string) => `${month}-01`;
  exports.setData(rows.map((r) => ({ time: time(r.month), value: r.exports })));
  imports.setData(rows.map((r) => ({ time: time(r.month), value: r.imports })));
  balance.setData(rows.map((r) => ({ time: time(r.month), value: r.balance, color: r.balance >= 0 ? '#1a9c5b' : '#d93d3d' })));
  edgeFit(chart, () => rows.length)();
  return () => chart.remove();
}

export interface BandLabels {
  p5: string;
  median: string;
  p95: string;
  current: string;
}

/**
 * The valuation band without a daily line: the window's p5, median and p95 and the current
 * multiple as horizontal lines, each year's min-max as a bar with its median as a tick. The
 * vertical axis is logarithmic because multiples are positive and a year with a collapsed
 * denominator (PER 300x) would otherwise flatten every other year.
 */
export function bandChart(band: ValuationBand, labels: BandLabels): SVGElement {
  const width = 720;
  const height = 300;
  const left = 56;
  const right = 110;
  const top = 16;
  const bottom = 32;
  const values = [band.p5, band.median, band.p95, band.min, band.max, band.current?.value ?? null].filter((v): v is number => v !== null && v > 0);
  for (const y of band.years) values.push(y.min, y.max);
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'band-chart', role: 'img' });
  if (values.length === 0) return root;
  const lo = Math.log(Math.min(...values) * 0.9);
  const hi = Math.log(Math.max(...values) * 1.1);
  const span = hi - lo || 1;
  const y = (v: number) => top + (height - top - bottom) * (1 - (Math.log(Math.max(v, 1e-9)) - lo) / span);
  const plotRight = width - right;

  // Axis ticks at 1-2-5 steps within the range.
  const ticks: number[] = [];
  for (let e = Math.floor(lo / Math.LN10) - 1; e <= Math.ceil(hi / Math.LN10); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log(v) >= lo && Math.log(v) <= hi) ticks.push(v);
    }
  }
  for (const v of ticks) {
    root.append(
      svg('line', { x1: left, x2: plotRight, y1: y(v), y2: y(v), stroke: GRID }),
      svg('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, num(v, v < 1 ? 2 : 0)),
    );
  }

  const years = band.years;
  const slot = (plotRight - left) / Math.max(years.length, 1);
  years.forEach((year, i) => {
    const cx = left + slot * (i + 0.5);
    const w = Math.min(28, slot * 0.5);
    root.append(
      svg('rect', { x: cx - w / 2, y: y(year.max), width: w, height: Math.max(1, y(year.min) - y(year.max)), fill: '#c7d6f2', 'data-year': year.year }),
      svg('line', { x1: cx - w / 2, x2: cx + w / 2, y1: y(year.median), y2: y(year.median), stroke: '#1f3f7a', 'stroke-width': 2 }),
      svg('text', { x: cx, y: height - 10, 'text-anchor': 'middle', class: 'tick' }, String(year.year)),
    );
  });

  const lines = [
    { value: band.p95, label: labels.p95, color: '#9a3412', dash: '6 4', kind: 'p95' },
    { value: band.median, label: labels.median, color: '#374151', dash: '', kind: 'median' },
    { value: band.p5, label: labels.p5, color: '#166534', dash: '6 4', kind: 'p5' },
    { value: band.current?.value ?? null, label: labels.current, color: '#c026d3', dash: '2 3', kind: 'current' },
  ].filter((l): l is typeof l & { value: number } => l.value !== null && l.value > 0);
  // Labels sit at their line's height, pushed apart where two lines are close (the current
  // value often sits next to the median).
  const placed = lines.map((l) => ({ ...l, labelY: y(l.value) + 4 })).sort((a, b) => a.labelY - b.labelY);
  for (let i = 1; i < placed.length; i++) {
    const prev = placed[i - 1];
    const cur = placed[i];
    if (prev !== undefined && cur !== undefined && cur.labelY - prev.labelY < 13) cur.labelY = prev.labelY + 13;
  }
  for (const l of placed) {
    root.append(
      svg('line', { x1: left, x2: plotRight, y1: y(l.value), y2: y(l.value), stroke: l.color, 'stroke-width': l.kind === 'current' ? 2 : 1.5, 'stroke-dasharray': l.dash, 'data-line': l.kind }),
      svg('text', { x: plotRight + 6, y: l.labelY, fill: l.color, class: 'line-label' }, `${l.label} ${num(l.value, 2)}x`),
    );
  }
  return root;
}
