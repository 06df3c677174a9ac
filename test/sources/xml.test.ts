import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCustomsXml } from '../../src/sources/customs/parse.js';
import { gatewayError } from '../../src/sources/shared/datagokr.js';
import { readFlatXml } from '../../src/sources/shared/xml.js';
import { fixture } from './helpers.js';

const envelope = (items: string): string =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><response><header><resultCode>00</resultCode>' +
  `<resultMsg>정상서비스.</resultMsg></header><body>${items}<numOfRows>10</numOfRows><totalCount>1</totalCount></body></response>`;

describe('readFlatXml', () => {
  it('a single <item> is a list of one, values stay strings (leading zeros kept)', () => {
    const doc = readFlatXml(envelope('<items><item><hsCode>0012</hsCode><expDlr>1,234</expDlr><year>2024.03</year></item></items>'), 'item');
    assert.deepEqual(doc.records, [{ hsCode: '0012', expDlr: '1,234', year: '2024.03' }]);
    assert.equal(doc.text.get('resultCode'), '00');
    assert.equal(doc.text.get('totalCount'), '1');
  });

  it('many items keep document order', () => {
    const doc = readFlatXml(envelope('<items><item><year>2024.01</year></item><item><year>2024.02</year></item></items>'), 'item');
    assert.deepEqual(doc.records, [{ year: '2024.01' }, { year: '2024.02' }]);
  });

  it('empty <items/> and <items></items> give no records', () => {
    assert.deepEqual(readFlatXml(envelope('<items/>'), 'item').records, []);
    assert.deepEqual(readFlatXml(envelope('<items></items>'), 'item').records, []);
    assert.deepEqual(readFlatXml(envelope(''), 'item').records, []);
  });

  it('decodes entities, character references and CDATA; empty and self-closing children are ""', () => {
    const doc = readFlatXml(
      '<result><list><corp_name>엘지 &amp; 에스 &#xAC00;&#44032; &lt;&gt;&quot;&apos;</corp_name>' +
        '<corp_eng_name><![CDATA[A & B <Co>]]></corp_eng_name><stock_code> </stock_code><modify_date/></list></result>',
      'list',
    );
    assert.deepEqual(doc.records, [{ corp_name: '엘지 & 에스 가가 <>"\'', corp_eng_name: 'A & B <Co>', stock_code: '', modify_date: '' }]);
  });

  it('a record child with children of its own is left out; the first of a repeated child wins', () => {
    const doc = readFlatXml('<r><item><a>1</a><nested><b>2</b></nested><a>3</a></item></r>', 'item');
    assert.deepEqual(doc.records, [{ a: '1' }]);
  });

  it('ignores a byte-order mark; throws on a document that is not well-formed', () => {
    assert.equal(readFlatXml('\uFEFF<?xml version="1.0"?><r><a>x</a></r>').text.get('a'), 'x');
    assert.throws(() => readFlatXml('<result><list><corp_code>00126380</corp_code></list><list><corp_co'));
    assert.throws(() => readFlatXml('<html><body>502 Bad Gateway<br></body></html>'));
    assert.throws(() => readFlatXml('{"status":"013"}'));
    assert.throws(() => readFlatXml('<r>&nbsp;</r>'));
  });

  it('property: any text written into a record reads back, trimmed', () => {
    const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    // XML 1.0 characters only (no C0 controls except tab/newline/CR, no lone surrogates, no U+FFFE/FFFF).
    const xmlChar = fc.oneof(
      fc.constantFrom('\t', '\n', ' ', '&', '<', '>', '"', "'", ']]>'),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    );
    const value = fc.array(xmlChar, { maxLength: 12 }).map((a) => a.join('').replace(/\r/g, ''));
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { maxLength: 5 }), (rows) => {
        const xml = `<items>${rows.map(([a, b]) => `<item><a>${escape(a)}</a><b><![CDATA[${b.replace(/]]>/g, '')}]]></b></item>`).join('')}</items>`;
        const got = readFlatXml(xml, 'item').records;
        assert.deepEqual(got, rows.map(([a, b]) => ({ a: a.trim(), b: b.replace(/]]>/g, '').trim() })));
      }),
    );
  });
});

describe('data.go.kr gateway error XML', () => {
  it('reads returnReasonCode and returnAuthMsg', () => {
    assert.equal(gatewayError(fixture('fsc/gateway_error.xml')), 'data.go.kr gateway error 30 SERVICE_KEY_IS_NOT_REGISTERED_ERROR');
  });

  it('falls back to errMsg, and to "?" without a code', () => {
    const xml = '<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg/></cmmMsgHeader></OpenAPI_ServiceResponse>';
    assert.equal(gatewayError(xml), 'data.go.kr gateway error ? SERVICE ERROR');
  });

  it('is null for an ordinary answer, and still an error when the envelope is broken', () => {
    assert.equal(gatewayError('{"response":{"header":{"resultCode":"00"}}}'), null);
    assert.equal(gatewayError(fixture('customs/newtrade_2024.xml')), null);
    assert.equal(gatewayError('<OpenAPI_ServiceResponse><cmmMsgHeader><returnReasonCode>22'), 'data.go.kr gateway error ? (not well-formed XML)');
  });
});

describe('parseCustomsXml envelope', () => {
  it('one item, no items, and a body that is not XML', () => {
    const one = parseCustomsXml(envelope('<items><item><year>2024.01</year><expDlr>5</expDlr></item></items>'));
    assert.deepEqual(one, { resultCode: '00', resultMsg: '정상서비스.', totalCount: 1, items: [{ year: '2024.01', expDlr: '5' }] });
    assert.deepEqual(parseCustomsXml(envelope('<items/>'))?.items, []);
    assert.equal(parseCustomsXml('Forbidden'), null);
    assert.equal(parseCustomsXml('<response><header/></response>'), null);
  });
});
