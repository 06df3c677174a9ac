// The screen's row text (RowTexts in src/wire/screen-rows.ts): each row's JSON as JSON.stringify
// writes the row object (or array), whether the text was kept from an earlier screen, made now
// and kept, or made past the byte budget and not kept; and which field lists are kept.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonBytes } from '../../src/wire/json-bytes.js';
import { ScreenIndex, ScreenRows, screenValues, type ScreenField, type ScreenStock } from '../../src/domain/screen.js';
import { RowTexts } from '../../src/wire/screen-rows.js';

const stocks: ScreenStock[] = [
  { code: '005930', market: 'KR', name: '삼성전자', nameEn: 'Samsung Electronics', sector: 'Semiconductors', exchange: 'KOSPI', band: 'mega', currency: 'KRW', grade: 'A+', values: screenValues((f) => (f === 'per' ? 12.5 : f === 'roe' ? -0 : f === 'marketCap' ? 4.2e14 : null)) },
  { code: 'BRK.B', market: 'US', name: 'Berkshire "B"', nameEn: null, sector: 'Insurance', exchange: 'NYSE', band: null, currency: 'USD', grade: null, values: screenValues((f) => (f === 'per' ? 0.1 + 0.2 : f === 'marketCap' ? 1e21 : null)) },
];

describe('RowTexts', () => {
  it('writes each row as JSON.stringify writes it, as objects and arrays, kept or not', () => {
    // By hand: per 12.5, roe -0 (written 0), marketCap 4.2e14 (420000000000000); BRK.B per 0.30000000000000004, marketCap 1e+21.
    const texts = new RowTexts(new ScreenIndex(stocks), { sets: 2, bytesPerSet: 460 });
    const fields: ScreenField[] = ['per', 'roe', 'marketCap', 'grade'];
    const first = '{"code":"005930","market":"KR","name":"삼성전자","nameEn":"Samsung Electronics","sector":"Semiconductors","sectorKo":"반도체","band":"mega","currency":"KRW","per":12.5,"roe":0,"marketCap":420000000000000,"grade":"A+"}';
    const second = '{"code":"BRK.B","market":"US","name":"Berkshire \\"B\\"","nameEn":null,"sector":"Insurance","sectorKo":"보험","band":null,"currency":"USD","per":0.30000000000000004,"roe":null,"marketCap":1e+21,"grade":null}';
    // Twice: made and kept or not, then read again. Budget 460 bytes, each row counted 96 more:
    // object rows 224 + 96 and 207 + 96 bytes (the second is not kept); array rows 133 + 96 and
    // 116 + 96 (both kept).
    for (let round = 0; round < 2; round++) {
      assert.equal(jsonBytes({ rows: texts.rows([0, 1], fields, 'objects') }).toString('utf8'), `{"rows":[${first},${second}]}`, `round ${round}`);
      assert.equal(jsonBytes(texts.rows([1, 0], fields, 'arrays')).toString('utf8'), JSON.stringify([JSON.parse(second), JSON.parse(first)].map((r: Record<string, unknown>) => Object.values(r))));
    }
    assert.deepEqual([Buffer.byteLength(first), Buffer.byteLength(second)], [224, 207]);
    assert.deepEqual(texts.kept(), { 'objects:per,roe,marketCap,grade': 1, 'arrays:per,roe,marketCap,grade': 2 });
    // JSON.stringify reads the same rows back.
    assert.deepEqual(JSON.parse(JSON.stringify(texts.rows([0, 1], fields, 'objects'))), [JSON.parse(first), JSON.parse(second)]);
    assert.equal(jsonBytes(texts.rows([], fields, 'objects')).toString('utf8'), '[]');
  });

  it('keeps the field lists used last: a third list drops the least recently used', () => {
    const texts = new RowTexts(new ScreenIndex(stocks), { sets: 2, bytesPerSet: 1_000_000 });
    texts.rows([0], ['per'], 'objects');
    texts.rows([0, 1], ['roe'], 'objects');
    texts.rows([1], ['per'], 'objects'); // per used last now
    texts.rows([0], ['grade'], 'objects');
    assert.deepEqual(texts.kept(), { 'objects:per': 2, 'objects:grade': 1 });
    // roe's list was dropped: made again, the same text.
    assert.equal(jsonBytes(texts.rows([1], ['roe'], 'objects')).toString('utf8'), '[{"code":"BRK.B","market":"US","name":"Berkshire \\"B\\"","nameEn":null,"sector":"Insurance","sectorKo":"보험","band":null,"currency":"USD","roe":null}]');
    assert.deepEqual(texts.kept(), { 'objects:grade': 1, 'objects:roe': 1 });
  });

  it('a page of rows (ScreenRows, data) is written from the texts kept for its index: what JSON.stringify makes of its rows', () => {
    const index = new ScreenIndex(stocks);
    const fields: ScreenField[] = ['marketCap', 'grade'];
    // By hand: BRK.B then 삼성전자, identity then marketCap and grade.
    const objects = '[{"code":"BRK.B","market":"US","name":"Berkshire \\"B\\"","nameEn":null,"sector":"Insurance","sectorKo":"보험","band":null,"currency":"USD","marketCap":1e+21,"grade":null},{"code":"005930","market":"KR","name":"삼성전자","nameEn":"Samsung Electronics","sector":"Semiconductors","sectorKo":"반도체","band":"mega","currency":"KRW","marketCap":420000000000000,"grade":"A+"}]';
    const arrays = '[["005930","KR","삼성전자","Samsung Electronics","Semiconductors","반도체","mega","KRW",420000000000000,"A+"]]';
    for (let round = 0; round < 2; round++) {
      const page = new ScreenRows(index, [1, 0], fields, 'objects');
      assert.equal(JSON.stringify({ rows: page }), `{"rows":${objects}}`);
      assert.equal(jsonBytes({ rows: page }).toString('utf8'), `{"rows":${objects}}`, `round ${round}`);
      assert.equal(jsonBytes([new ScreenRows(index, [0], fields, 'arrays')]).toString('utf8'), `[${arrays}]`);
      assert.equal(JSON.stringify(new ScreenRows(index, [0], fields, 'arrays')), arrays);
    }
  });
});
