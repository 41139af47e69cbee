import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MESSAGE_RATE, MessageBucket, nestsDeeperThan } from '../../src/stream/intake.ts';

test('nesting is counted over arrays and objects, outside strings, without parsing', () => {
  assert.equal(nestsDeeperThan('{"a":[1,{"b":[]}]}', 4), false);
  assert.equal(nestsDeeperThan('{"a":[1,{"b":[]}]}', 3), true);
  assert.equal(nestsDeeperThan(`{"s":"${'['.repeat(100)}"}`, 1), false, 'brackets in a string');
  assert.equal(nestsDeeperThan(`{"s":"\\"${'{'.repeat(100)}"}`, 1), false, 'an escaped quote does not end the string');
  assert.equal(nestsDeeperThan('['.repeat(1_000_000), 32), true, 'a million levels: one pass, no stack');
  assert.equal(nestsDeeperThan('[]'.repeat(1000), 1), false, 'siblings are not nesting');
});

test('the bucket allows its burst, then its rate, on its own clock', () => {
  let now = 0;
  const bucket = new MessageBucket(10, 5, () => now);
  for (let i = 0; i < 5; i++) assert.equal(bucket.take(10), true, `message ${i + 1} of the burst`);
  assert.equal(bucket.take(10), false);
  now += 100;
  assert.equal(bucket.take(10), true, 'a tenth of a second at 10 a second refills one');
  assert.equal(bucket.take(10), false);
  now += 60_000;
  for (let i = 0; i < 5; i++) assert.equal(bucket.take(10), true, 'refilled up to the burst, no further');
  assert.equal(bucket.take(10), false);
});

test('a message costs a token per started 8 KB, and at least one', () => {
  const bucket = new MessageBucket(1, 4, () => 0);
  assert.equal(bucket.take(2 * MESSAGE_RATE.bytesPerToken + 1), true);
  assert.equal(bucket.take(0), true);
  assert.equal(bucket.take(0), false);
});
