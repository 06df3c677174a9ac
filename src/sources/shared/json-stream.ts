// One JSON document read from a byte stream as it arrives (@streamparser/json), never as one
// string: a bulk archive's member is parsed while it is inflated, and a document nested deeper
// than the cap is refused at the first token past it, before anything deeper is built (JSON.parse
// on a hostile member of 63 million nested arrays built them all, 6.6 GB).

import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';

/** Why a document was refused: `too deep` (past the nesting cap) or `not JSON`. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  constructor(
    readonly reason: 'too deep' | 'not JSON',
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/**
 * The document in `source`. Throws JsonStreamError for a document nested deeper than `maxDepth`
 * (objects and arrays), for text that is not one JSON document; the stream's own errors (an
 * inflate error) pass through as they are.
 */
export async function parseJsonStream(source: AsyncIterable<Uint8Array>, maxDepth: number): Promise<unknown> {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$'] });
  let failure: unknown = null;
  let depth = 0;
  let done = false;
  let result: unknown;
  tokenizer.onToken = (t) => {
    if (t.token === TokenType.LEFT_BRACE || t.token === TokenType.LEFT_BRACKET) {
      depth += 1;
      if (depth > maxDepth) throw new JsonStreamError('too deep', `nested more than ${maxDepth} levels (at byte ${t.offset})`);
    } else if (t.token === TokenType.RIGHT_BRACE || t.token === TokenType.RIGHT_BRACKET) {
      depth -= 1;
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
