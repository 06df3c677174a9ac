// The frame of an answer about one stock, written once for every per-stock tool: the stock's
// identity first (code, market, name, English name, currency: `stockIdentity` of ./shapes.ts),
// then what the tool answers, then the served dataset's meta (when it was computed and where its
// data came from: `meta` of ./shapes.ts), which every answer that depends on market data carries.

import { englishNameOf, type Security } from '../domain/model.js';

/** Who the answer is about. */
export interface StockIdentity {
  code: string;
  market: Security['market'];
  name: string;
  nameEn: string | null;
  currency: Security['currency'];
}

/** When the served dataset was computed (ISO 8601 with offset) and its source (`demo` or the real ones). */
export interface AnswerMeta {
  updatedAt: string;
  source: string;
}

/** The identity block of a stock's answer. */
export function identityOf(security: Pick<Security, 'code' | 'market' | 'name' | 'nameEn' | 'currency'>): StockIdentity {
  return { code: security.code, market: security.market, name: security.name, nameEn: englishNameOf(security), currency: security.currency };
}

/** The meta block of an answer: the served dataset's `updatedAt` and `source`. */
export function metaOf(data: Readonly<AnswerMeta>): AnswerMeta {
  return { updatedAt: data.updatedAt, source: data.source };
}

/** An answer about `security`: its identity, then `body`'s fields in their order, then the dataset's meta. */
export function stockAnswer<B extends object>(security: Pick<Security, 'code' | 'market' | 'name' | 'nameEn' | 'currency'>, data: Readonly<AnswerMeta>, body: B): StockIdentity & B & AnswerMeta {
  return { ...identityOf(security), ...body, ...metaOf(data) };
}
