import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAddressOrCidr, TrustedProxies } from '../../src/access/client-address.ts';

test('the client is the right-most hop that is not a trusted proxy', () => {
  const p = new TrustedProxies(['10.0.0.0/8', '::1']);
  // Not from a trusted proxy: its X-Forwarded-For counts for nothing.
  assert.equal(p.clientOf('198.51.100.9', '203.0.113.1'), '198.51.100.9');
  assert.equal(p.clientOf('10.1.2.3', '203.0.113.1'), '203.0.113.1');
  // What the client wrote on the left is skipped: the proxy appended the address it saw.
  assert.equal(p.clientOf('10.1.2.3', '1.2.3.4, 203.0.113.1, 10.9.9.9'), '203.0.113.1');
  assert.equal(p.clientOf('::ffff:10.1.2.3', ['1.2.3.4', '203.0.113.1']), '203.0.113.1');
  assert.equal(p.clientOf('::1', '2001:db8::5'), '2001:db8::5');
  // Every hop trusted: the left-most.
  assert.equal(p.clientOf('10.1.2.3', '10.0.0.7, 10.0.0.8'), '10.0.0.7');
  assert.equal(p.clientOf('10.1.2.3', undefined), '10.1.2.3');
});

test('with no trusted proxies every X-Forwarded-For is ignored', () => {
  const p = new TrustedProxies([]);
  assert.equal(p.clientOf('127.0.0.1', '203.0.113.1'), '127.0.0.1');
  assert.equal(p.trusts('127.0.0.1'), false);
});

test('addresses and CIDR ranges are told from anything else', () => {
  for (const ok of ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8', '0.0.0.0/0']) assert.ok(isAddressOrCidr(ok), ok);
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.0/8/1', '10.0.0.0/x', ''])
    assert.ok(!isAddressOrCidr(bad), bad);
});
