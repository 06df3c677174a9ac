// Whole-market price rows gathered over many dates (FSC and KRX read the market one date a call):
// every bar, and each code's security as of its newest bar, so a rename or a KOSDAQ->KOSPI move
// shows the latest name and market whatever order the dates are read in.

import type { DailyBar, Security } from '../../domain/model.js';

export class MarketRows {
  readonly bars: DailyBar[] = [];
  private readonly latest = new Map<string, { date: string; security: Security }>();

  /** Takes one row (bound: it can be handed on as a callback). */
  readonly take = (bar: DailyBar, security: Security): void => {
    this.bars.push(bar);
    const prev = this.latest.get(security.code);
    // A later or same-day row wins: the newest name and market.
    if (!prev || prev.date <= bar.date) this.latest.set(security.code, { date: bar.date, security });
  };

  /** Each code's security as of its newest bar, in the order the codes were first seen. */
  securities(): Security[] {
    return [...this.latest.values()].map((s) => s.security);
  }
}
