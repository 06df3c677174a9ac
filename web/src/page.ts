// What every page gets from the router.

export interface PageContext {
  /** The element the page renders into (emptied before each render). */
  view: HTMLElement;
  /** Path segments after the page name: `#/stock/005930` gives ['005930']. */
  path: string[];
  params: URLSearchParams;
  /** False once the user has moved on: late responses must not draw over the next page. */
  isCurrent(): boolean;
  /** Runs when the page is left or re-rendered (charts release their canvases). */
  onDispose(fn: () => void): void;
  /** Go to another hash route, e.g. `#/stock/005930`. */
  navigate(hash: string): void;
}
