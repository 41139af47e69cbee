import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessControl } from '../../src/access/access-control.ts';
import { type Account, accountOf } from '../../src/access/authenticator.ts';
import { MemoryCounters } from '../../src/access/counters/memory-counters.ts';
import { newKeyRecord } from '../../src/access/keys.ts';
import { KEEPING } from '../../src/perf/fresh-cache.ts';

const at = Date.parse('2026-11-23T15:30:00Z');

/** The headers one meter call sets, by name. */
function metered(access: AccessControl, a: Account, points: number): Record<string, string> {
  const out: Record<string, string> = {};
  access.meter(a, points, { header: (name, value) => (out[name] = value) });
  return out;
}

/** An account that counts how often its billing is read: only working out its usage plan reads it. */
function counting(a: Account): { account: Account; plans: () => number } {
  let reads = 0;
  const account = new Proxy(a, {
    get(target, name, receiver) {
      if (name === 'billing') reads++;
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
  return { account, plans: () => reads };
}

test('two account objects of one key, metered in turn, count one usage and send the same headers', () => {
  let now = at;
  const access = new AccessControl(new MemoryCounters(() => now), () => now);
  const record = newKeyRecord('ob_meter_one_key', 'ultra');
  // Each read of a key makes a new object: streams of one key opened apart hold different ones.
  const first = accountOf(record);
  const second = accountOf(record);
  const a = metered(access, first, 3);
  now += 10;
  const b = metered(access, second, 4);
  now += 10;
  const c = metered(access, first, 5);
  assert.equal(a['x-datapoints-used'], '3');
  assert.equal(b['x-datapoints-used'], '7');
  assert.equal(c['x-datapoints-used'], '12');
  for (const h of [b, c]) {
    for (const name of ['x-datapoints-limit', 'x-datapoints-period', 'x-datapoints-reset', 'x-tier']) {
      assert.equal(h[name], a[name], name);
    }
  }
  assert.equal(c['x-datapoints-remaining'], String(Number(a['x-datapoints-limit']) - 12));
});

test('a usage plan is worked out once per account object and period, whichever object was metered last', (t) => {
  // The plain twin (ODDSBASE_PLAIN=1) works it out at every call.
  if (KEEPING !== 'kept') return t.skip('the plain twin keeps no plan');
  let now = at;
  const access = new AccessControl(new MemoryCounters(() => now), () => now);
  const record = newKeyRecord('ob_meter_plans', 'ultra');
  const first = counting(accountOf(record));
  const second = counting(accountOf(record));
  for (let i = 0; i < 5; i++) {
    metered(access, first.account, 1);
    metered(access, second.account, 1);
    now += 1000;
  }
  assert.equal(first.plans(), 1);
  assert.equal(second.plans(), 1);
  // A new period (the calendar month ends) works it out again.
  now = Date.parse('2026-12-01T00:00:01Z');
  const next = metered(access, first.account, 1);
  assert.equal(first.plans(), 2);
  assert.equal(next['x-datapoints-used'], '1');
  assert.equal(next['x-datapoints-reset'], '2027-01-01T00:00:00.000Z');
});
