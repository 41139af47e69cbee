import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodOfDetail } from '../../src/changelog/change.ts';
import { parseLines } from '../../src/http/routes/admin/ndjson.ts';

test('an NDJSON body gives one record a line, blank and white lines skipped, CRLF taken', () => {
  const body = Buffer.from('{"a":1}\r\n\n   \n{"b":"x"}\n\t\r\n{"c":[1,2]}');
  assert.deepEqual(parseLines(body), { records: [{ a: 1 }, { b: 'x' }, { c: [1, 2] }] });
  assert.deepEqual(parseLines(Buffer.from('{"a":1}\n')), { records: [{ a: 1 }] });
  assert.deepEqual(parseLines(Buffer.alloc(0)), { records: [] });
});

test('a line that is not JSON is a fault at the index its record would have, every one named', () => {
  const body = Buffer.from('{"a":1}\n\nnot json\n{"b":2}\n{"c":\n{"d":4}\n');
  assert.deepEqual(parseLines(body), {
    faults: [
      { index: 1, field: '', message: 'the line is not JSON' },
      { index: 3, field: '', message: 'the line is not JSON' },
    ],
  });
});

test('characters of several bytes decode whole on every line, and a broken one as the whole text would', () => {
  const names = ['Atlético', 'São Paulo', '東京', 'Zürich 🏟'];
  const body = Buffer.from(names.map((name) => JSON.stringify({ name })).join('\n'));
  assert.deepEqual(parseLines(body), { records: names.map((name) => ({ name })) });
  // A character cut short before a newline: its replacement is what decoding the whole body gives.
  const cut = Buffer.concat([Buffer.from('{"n":"a'), Buffer.from('東').subarray(0, 2), Buffer.from('"}\n{"n":"b"}')]);
  const whole = cut
    .toString('utf8')
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  assert.deepEqual(parseLines(cut), { records: whole });
});

test("a detail's period is the integer after the first period_id member that has one, else 0", () => {
  assert.equal(
    periodOfDetail('{"price_id":7,"period_id":12,"market_instance_id":3,"line_id":"x","price_delta":0}'),
    12,
  );
  assert.equal(periodOfDetail('{"price_id":7,"period_id":0,"market_instance_id":3}'), 0);
  assert.equal(periodOfDetail('{"period_id":-3}'), -3);
  assert.equal(periodOfDetail('{"price_id":7,"line_id":"x"}'), 0);
  assert.equal(periodOfDetail(null), 0);
  assert.equal(periodOfDetail('{"source_id":"\\"period_id\\":x","period_id":5}'), 5);
  assert.equal(periodOfDetail('{"period_id":"one","period_id":2}'), 2);
  assert.equal(periodOfDetail('{"period_id":12345678901234567891}'), Number('12345678901234567891'));
  assert.equal(periodOfDetail('{"period_id":-'), 0);
});
