// Charts. Prices and trade totals use lightweight-charts (canvas, loaded on demand so the
// rankings page does not download it); the valuation band is a small SVG drawing because
// it is not a time series (see docs/web.md). The dashboard and the MCP Apps view (web/views)
// draw with these same functions; the view sets the dark palette when its host is dark.

import type { ChartOptions, DeepPartial, IChartApi, ISeriesApi, Time } from 'lightweight-charts';
import { svg } from './dom.js';
import { num } from './format.js';
import { currentLang } from './i18n.js';
import type { Currency, Market, PriceBar, TradeTotal, ValuationBand } from './types.js';

const loadLibrary = () => import('lightweight-charts');

/** The colours of a chart's frame: the dashboard's light page, or a dark host (the MCP Apps view). */
interface Palette {
  background: string;
  grid: string;
  text: string;
  border: string;
}
const LIGHT: Palette = { background: '#ffffff', grid: '#eef0f3', text: '#374151', border: '#d1d5db' };
const DARK: Palette = { background: '#111827', grid: '#1f2937', text: '#d1d5db', border: '#374151' };
let palette: Palette = LIGHT;

/** The palette of the charts drawn after this call (the dashboard is always light). */
export function setChartTheme(theme: 'light' | 'dark'): void {
  palette = theme === 'dark' ? DARK : LIGHT;
}

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

/** The frame every time-series chart shares: palette, grid, scale borders (or the library's), the page's language. */
function frameOptions(localization: DeepPartial<ChartOptions['localization']> = {}, scaleBorders = true): DeepPartial<ChartOptions> {
  return {
    autoSize: true,
    // No logo in the chart (in its corner it covers the volume bars): the page links the attribution instead.
    layout: { textColor: palette.text, background: { color: palette.background }, panes: { separatorColor: palette.border }, attributionLogo: false },
    grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
    timeScale: { tickMarkFormatter: tickLabel, ...(scaleBorders || palette !== LIGHT ? { borderColor: palette.border } : {}) },
    ...(scaleBorders || palette !== LIGHT ? { rightPriceScale: { borderColor: palette.border } } : {}),
    // Month names on the time axis follow the page language, not the browser's.
    localization: { locale: chartLocale(), ...localization },
  };
}

/** Korean charts draw rises in red and falls in blue; US charts green and red. */
function upDownColors(market: Market): { up: string; down: string } {
  return market === 'KR' ? { up: '#d93d3d', down: '#2f6fd6' } : { up: '#1a9c5b', down: '#d93d3d' };
}

/** A horizontal price level drawn across the candles (the valuation band's levels in the MCP Apps view). */
export interface PriceLevel {
  price: number;
  title: string;
  color: string;
}

export interface PriceChart {
  setBars(bars: PriceBar[]): void;
  /** Replaces the horizontal levels drawn across the candles (none at first). */
  setLevels(levels: PriceLevel[]): void;
  dispose(): void;
}

/** Candles in the top pane, volume in a smaller pane below. */
export async function priceChart(container: HTMLElement, market: Market, currency: Currency): Promise<PriceChart> {
  const { createChart, CandlestickSeries, HistogramSeries } = await loadLibrary();
  const colors = upDownColors(market);
  const chart: IChartApi = createChart(container, frameOptions());
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
  let levels: ReturnType<typeof candles.createPriceLine>[] = [];
  let count = 0;
  const fit = edgeFit(chart, () => count);
  return {
    setLevels(next) {
      for (const line of levels) candles.removePriceLine(line);
      levels = next.map((l) => candles.createPriceLine({ price: l.price, title: l.title, color: l.color, lineWidth: 1, lineStyle: 2, axisLabelVisible: true }));
    },
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
  const chart = createChart(container, frameOptions({ priceFormatter: billions }, false));
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

/** One line per sector's monthly exports (the MCP Apps view of get_sector_exports). */
export async function sectorLinesChart(container: HTMLElement, sectors: { sector: string; series: { month: string; exports: number }[] }[]): Promise<() => void> {
  const { createChart, LineSeries } = await loadLibrary();
  const billions = (v: number) => `$${num(v / 1e9, 1)}B`;
  const chart = createChart(container, frameOptions({ priceFormatter: billions }));
  sectors.forEach((s, i) => {
    const line = chart.addSeries(LineSeries, { color: SERIES_COLORS[i % SERIES_COLORS.length], lineWidth: 2, title: s.sector, lastValueVisible: false, priceLineVisible: false });
    line.setData(s.series.map((p) => ({ time: `${p.month}-01`, value: p.exports })));
  });
  chart.timeScale().fitContent();
  return () => chart.remove();
}

/** Distinct line colours, readable on the light and the dark palette. */
export const SERIES_COLORS = ['#2f6fd6', '#e0892b', '#1a9c5b', '#c026d3', '#d93d3d', '#0891b2', '#a16207', '#6d28d9', '#db2777', '#4d7c0f'];

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
      svg('line', { x1: left, x2: plotRight, y1: y(v), y2: y(v), stroke: palette.grid }),
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
