// The XML our providers send (data.go.kr services and their gateway errors, OpenDART's
// corpCode.xml) is read by saxes, the conformant streaming parser jsdom uses: entities,
// character references and CDATA are decoded by the parser, and a document that is not
// well-formed (a truncated download, an HTML error page) throws instead of yielding part of
// its rows. Streaming matters for corpCode.xml (~100,000 records, ~30 MB): a tree-building
// parser (fast-xml-parser 5) took ~3.5 s and ~360 MB of heap on it, saxes well under a
// second (docs/sources.md).
//
// These documents are flat: an envelope of leaf elements (resultCode, totalCount) and a list
// of records whose children are leaves. One pass collects both. Values stay strings
// ("005930" keeps its zeros); the adapters convert them.

import { SaxesParser } from 'saxes';

export interface FlatXml {
  /** Trimmed text of the first element of each name that holds no child element, outside the records. */
  text: ReadonlyMap<string, string>;
  /**
   * Every `<recordTag>` element, as a map of its leaf children's names to their trimmed text
   * (an empty element `<stock_code/>` is ''). Children with children of their own are left out.
   */
  records: Record<string, string>[];
}

/** Reads a flat XML document in one pass. Throws when it is not well-formed XML. */
export function readFlatXml(xml: string, recordTag?: string): FlatXml {
  const parser = new SaxesParser({ position: false });
  const text = new Map<string, string>();
  const records: Record<string, string>[] = [];
  // Per open element: whether a child element has been seen in it.
  const hasChild: boolean[] = [];
  let buf = '';
  let record: Record<string, string> | null = null;
  let recordDepth = -1;

  parser.on('opentag', (tag) => {
    if (hasChild.length > 0) hasChild[hasChild.length - 1] = true;
    hasChild.push(false);
    buf = '';
    if (record === null && tag.name === recordTag) {
      record = {};
      recordDepth = hasChild.length;
    }
  });
  parser.on('text', (t) => void (buf += t));
  parser.on('cdata', (t) => void (buf += t));
  parser.on('closetag', (tag) => {
    const depth = hasChild.length;
    const leaf = hasChild.pop() === false;
    if (leaf) {
      const name = tag.name;
      if (record === null) {
        if (!text.has(name)) text.set(name, buf.trim());
      } else if (depth === recordDepth + 1 && !Object.hasOwn(record, name)) {
        record[name] = buf.trim();
      }
    }
    if (record !== null && depth === recordDepth) {
      records.push(record);
      record = null;
    }
    buf = '';
  });
  // A byte-order mark is not part of the document (TextDecoder drops it; Buffer#toString does not).
  parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  return { text, records };
}
