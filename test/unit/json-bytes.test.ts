import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinJson, ownBytes } from '../../src/projection/json-bytes.ts';

test('joinJson: the items between open and close, commas between them only', () => {
  const items = ['{"a":1}', '{"b":"é ☃ 𝄞"}', '[]'].map(ownBytes);
  const joined = joinJson('{"events":[', items, ']}');
  assert.equal(joined.toString(), '{"events":[{"a":1},{"b":"é ☃ 𝄞"},[]]}');
  assert.deepEqual(JSON.parse(joined.toString()), { events: [{ a: 1 }, { b: 'é ☃ 𝄞' }, []] });
  assert.equal(joinJson('[', [ownBytes('1')], ']').toString(), '[1]');
  assert.equal(joinJson('{"x":[', [], ']}').toString(), '{"x":[]}');
});

test('ownBytes: UTF-8 of the text, in memory of its own rather than a slice of the shared pool', () => {
  const text = '{"name":"Montréal 🏒"}';
  const bytes = ownBytes(text);
  assert.equal(bytes.toString('utf8'), text);
  assert.equal(bytes.length, Buffer.byteLength(text));
  assert.equal(bytes.byteOffset, 0);
  assert.equal(bytes.buffer.byteLength, bytes.length);
});
