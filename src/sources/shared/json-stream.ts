// One JSON document read from a byte stream as it arrives (@streamparser/json), never as one
// string: a bulk archive's member is parsed while it is inflated, and a document nested deeper
// than the cap is refused at the first token past it, before anything deeper is built (JSON.parse
// on a hostile member of 63 million nested arrays built them all, 6.6 GB).

import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';

/** Caps on one document: what the parsed value may hold. */
export interface JsonLimits {
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Objects and arrays in all (each costs tens of bytes built, however little text it takes). */
  maxContainers: number;
  /** Values in all: objects, arrays, strings, numbers, booleans and nulls. */
  maxValues: number;
}

/** Why a document was refused: `too deep` (past the nesting cap), `too many values` (past a count cap) or `not JSON`. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  constructor(
    readonly reason: 'too deep' | 'too many values' | 'not JSON',
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/**
 * The document in `source`. Throws JsonStreamError for a document past `limits` (at the first
 * token past a cap, before it is built), for text that is not one JSON document; the stream's
 * own errors (an inflate error) pass through as they are.
 */
export async function parseJsonStream(source: AsyncIterable<Uint8Array>, limits: JsonLimits): Promise<unknown> {
  const { maxDepth, maxContainers, maxValues } = limits;
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$'] });
  let failure: unknown = null;
  let depth = 0;
  let containers = 0;
  let values = 0;
  let done = false;
  let result: unknown;
  const tooMany = (what: string, cap: number, offset: number): JsonStreamError => new JsonStreamError('too many values', `more than ${cap} ${what} (at byte ${offset})`);
  tokenizer.onToken = (t) => {
    switch (t.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        depth += 1;
        if (depth > maxDepth) throw new JsonStreamError('too deep', `nested more than ${maxDepth} levels (at byte ${t.offset})`);
        if (++containers > maxContainers) throw tooMany('objects and arrays', maxContainers, t.offset);
        if (++values > maxValues) throw tooMany('values', maxValues, t.offset);
        break;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        depth -= 1;
        break;
      case TokenType.STRING:
      case TokenType.NUMBER:
      case TokenType.TRUE:
      case TokenType.FALSE:
      case TokenType.NULL:
        if (++values > maxValues) throw tooMany('values', maxValues, t.offset);
        break;
      default:
        break;
    }
    parser.write(t);
  };
  tokenizer.onError = (err) => {
    failure ??= err;
  };
  parser.onError = (err) => {
    failure ??= err;
  };
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) {
      result = value;
      done = true;
    }
  };
  const check = (): void => {
    if (failure === null) return;
    if (failure instanceof JsonStreamError) throw failure;
    throw new JsonStreamError('not JSON', failure instanceof Error ? failure.message : String(failure));
  };
  for await (const chunk of source) {
    tokenizer.write(chunk);
    check();
  }
  tokenizer.end();
  check();
  if (!done) throw new JsonStreamError('not JSON', 'the document ends before its value does');
  return result;
}
