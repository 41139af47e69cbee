import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryCounters } from '../../src/access/counters/memory-counters.ts';
import { addressKey, FAILED_KEY_CHECK_LIMITS, FailedKeyChecks } from '../../src/access/failed-auth.ts';

const limits = { ...FAILED_KEY_CHECK_LIMITS, ceiling: 4, slowAfter: 2, windowMs: 10_000 };

test('failures are slowed past slowAfter and blocked at the ceiling until the window ends', () => {
  let t = 1_000_000;
  const f = new FailedKeyChecks(limits, () => t);
  assert.deepEqual(
    [1, 2, 3, 4].map(() => f.fail('10.0.0.1')),
    [0, 0, 100, 200],
  );
  assert.equal(f.blockedFor('10.0.0.1'), 10);
  assert.equal(f.blockedFor('10.0.0.2'), 0, 'another address is not blocked');
  t += 7_500;
  assert.equal(f.blockedFor('10.0.0.1'), 3, 'whole seconds, rounded up');
  t += 2_500;
  assert.equal(f.blockedFor('10.0.0.1'), 0, 'the window has passed');
  assert.equal(f.fail('10.0.0.1'), 0, 'and a new one starts from zero');
});

test('keys that passed a check are remembered, within a bound', () => {
  const f = new FailedKeyChecks({ ...limits, maxKnownKeys: 2 });
  f.passed('a');
  f.passed('b');
  f.passed('b');
  assert.ok(f.isKnown('a') && f.isKnown('b'));
  f.passed('c');
  assert.ok(f.isKnown('c'));
  assert.ok(!f.isKnown('a'), 'past the bound the memory starts afresh');
});

test('tracked addresses are bounded: the oldest window is dropped first', () => {
  const t = 0;
  const f = new FailedKeyChecks({ ...limits, maxAddresses: 2 }, () => t);
  for (let i = 0; i < 4; i++) f.fail('10.0.0.1');
  for (let i = 0; i < 4; i++) f.fail('10.0.0.2');
  assert.ok(f.blockedFor('10.0.0.1') > 0 && f.blockedFor('10.0.0.2') > 0);
  f.fail('10.0.0.3');
  assert.equal(f.blockedFor('10.0.0.1'), 0);
  assert.ok(f.blockedFor('10.0.0.2') > 0);
});

test('an IPv6 client is counted by its /64', () => {
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0DB8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('127.0.0.1'), '127.0.0.1');
  assert.equal(addressKey('::ffff:127.0.0.1'), '::ffff:127.0.0.1');
  const f = new FailedKeyChecks(limits);
  for (let i = 0; i < 4; i++) f.fail(`2001:db8:1:2::${i + 1}`);
  assert.ok(f.blockedFor('2001:db8:1:2:ffff::9') > 0);
  assert.equal(f.blockedFor('2001:db8:1:3::1'), 0);
});

test('given shared counters, failures on several instances add up to one ceiling, and known keys are known to all', () => {
  let t = 1_000_000;
  const shared = new MemoryCounters(() => t);
  const [a, b] = [0, 1].map(() => new FailedKeyChecks(limits, () => t, shared)) as [FailedKeyChecks, FailedKeyChecks];
  assert.deepEqual([a.fail('10.0.0.1'), b.fail('10.0.0.1'), a.fail('10.0.0.1')], [0, 0, 100]);
  assert.equal(b.blockedFor('10.0.0.1'), 0);
  t += 1_000;
  assert.equal(b.fail('10.0.0.1'), 200);
  assert.equal(a.blockedFor('10.0.0.1'), 9, 'the window opened at the first failure, on either');
  assert.equal(b.blockedFor('10.0.0.1'), 9);
  a.passed('k');
  assert.ok(b.isKnown('k') && !b.isKnown('other'));
  t += 9_000;
  assert.equal(b.blockedFor('10.0.0.1'), 0, 'the window has passed');
  assert.equal(a.fail('10.0.0.1'), 0, 'and a new one starts from zero');
});
