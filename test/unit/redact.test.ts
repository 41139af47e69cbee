import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quote } from '../../src/projection/errors.ts';
import { redact } from '../../src/projection/redact.ts';

const KEY = `ob_${'0123456789abcdef'.repeat(2)}01234567`;
const encoded = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

test('every spelling of the key parameter, and its lookalikes, loses its value', () => {
  const names = ['key', 'KEY', '%6Bey', 'k%65y', '%6b%65%79', 'k%2565y', 'api_key', 'apiKey', 'key[]', 'key%5B%5D'];
  for (const name of names) {
    for (const url of [`/m?${name}=hunter2&b=2`, `/m?a=1&${name}=hunter2`, `/m?a=1;${name}=hunter2`]) {
      const out = redact(url);
      assert.ok(!out.includes('hunter2'), out);
      assert.ok(out.includes(`${name}=[redacted]`), out);
    }
  }
});

test('parameters that are not key-named keep their values', () => {
  const plain = '/api/v2/events/x?market_ids=1,2&last_id=5';
  assert.equal(redact(plain), plain);
  assert.equal(redact('/api/v2/sports'), '/api/v2/sports');
});

test('a key-shaped value is redacted wherever it is, percent-encoded or not', () => {
  for (const url of [
    `/api/v2/events/${KEY}`,
    `/api/v2/events/${KEY}/markets?x=1`,
    `/api/v2/markets/delta?last_id=${KEY}`,
    `/api/v2/events/${encoded(KEY)}`,
    `/api/v2/events/${KEY.toUpperCase()}`,
    `/api/v2/markets?${KEY}`,
    `event ${KEY} not found`,
  ]) {
    const out = redact(url);
    assert.ok(!out.toLowerCase().includes(KEY.slice(3, 20)), out);
    assert.ok(out.includes('[redacted]'), out);
  }
});

test('the short key prefix shown by keys list is not taken for a key', () => {
  assert.equal(redact('ob_1a2b3c4'), 'ob_1a2b3c4');
});

test('quote cuts client input to 40 characters after redacting keys', () => {
  assert.equal(quote('abc'), 'abc');
  assert.equal(quote('x'.repeat(8000)), `${'x'.repeat(40)}…`);
  assert.equal(quote(KEY), '[redacted]');
  assert.ok(!quote(`${'y'.repeat(20)}${KEY}`).includes(KEY.slice(3, 12)));
});

test('a stream token in a WebSocket URL is redacted like a key', () => {
  const out = redact('/api/v2/ws?token=st_abcdefghijklmnop&x=1');
  assert.equal(out, '/api/v2/ws?token=[redacted]&x=1');
});

test('a key without its prefix, or any run of hex longer than the API’s 32-digit ids, is redacted', () => {
  assert.equal(redact(`event ${KEY.slice(3)} not found`), 'event [redacted] not found');
  assert.equal(quote(`${'y'.repeat(30)}${KEY.slice(3)}`), `${'y'.repeat(30)}[redacted]`);
  assert.equal(redact('f'.repeat(33)), '[redacted]');
  // Line ids and the simulator's event ids are 32 hex digits: errors still name them.
  const lineId = '0123456789abcdef'.repeat(2);
  assert.equal(quote(lineId), lineId);
});
