import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, etagOf, GZIP_MIN_BYTES, keepBody, matchesEtag } from '../../src/http/encoding.ts';

test('Accept-Encoding: gzip when named or covered by *, never at q=0', () => {
  for (const yes of [
    'gzip',
    'gzip, deflate, br',
    'br;q=1.0, gzip;q=0.8, *;q=0.1',
    'x-gzip',
    '*',
    'identity, *;q=0.5',
    ['br', 'gzip'],
  ]) {
    assert.equal(acceptsGzip(yes), true, String(yes));
  }
  for (const no of [
    undefined,
    '',
    'identity',
    'br',
    'gzip;q=0',
    'GZIP; q=0',
    '*;q=0, identity',
    '*, gzip;q=0',
    'deflate',
  ]) {
    assert.equal(acceptsGzip(no), false, String(no));
  }
});

test('If-None-Match: weak comparison, lists and *', () => {
  const tag = 'W/"abc"';
  for (const yes of [tag, '"abc"', 'W/"x", W/"abc"', '*']) assert.equal(matchesEtag(yes, tag), true, yes);
  for (const no of [undefined, '', 'W/"abcd"', '"ab"']) assert.equal(matchesEtag(no, tag), false, String(no));
});

test('an events envelope’s ETag leaves out its meta (the head it was read at), and nothing else', () => {
  const at = (head: number, score: number) =>
    Buffer.from(`{"meta":{"delta_last_id":"${head}"},"events":[{"event_id":"e","score":${score}}]}`);
  assert.equal(etagOf(at(1, 0)), etagOf(at(2, 0)));
  assert.notEqual(etagOf(at(1, 0)), etagOf(at(1, 1)));
  assert.notEqual(etagOf(Buffer.from('[{"value":"1"}]')), etagOf(Buffer.from('[{"value":"2"}]')));
  assert.match(etagOf(at(1, 0)), /^W\/"[\w-]+"$/);
});

test('a kept body is compressed from GZIP_MIN_BYTES on, once, to its own bytes', () => {
  const small = keepBody(Buffer.from('{"a":1}'));
  assert.equal(small.gzip, undefined);
  const large = Buffer.from(JSON.stringify({ rows: Array.from({ length: GZIP_MIN_BYTES }, (_, i) => i) }));
  const kept = keepBody(large);
  assert.ok(kept.gzip && kept.gzip.length < large.length);
  assert.ok(gunzipSync(kept.gzip).equals(large));
  assert.equal(kept.etag, etagOf(large));
});
