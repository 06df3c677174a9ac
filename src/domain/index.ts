// The calculation engine's public surface: pure functions over the data model, no I/O.

export * from './model.js';
export * from './results.js';
export * from './calendar.js';
export * from './session.js';
export * from './change.js';
export * from './ttm.js';
export * from './v3.js';
export * from './rankings.js';
export * from './score.js';
export * from './snapshot.js';
export * from './valuationBand.js';
export * from './bars.js';
export * from './trade.js';
