import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, resolveServeConfig } from '../../src/config.ts';

/** `--sports` (SIM_SPORTS): the sport ids the simulator plays, checked against the catalog. */

test('no --sports plays every sport; a list keeps its known ids once each', () => {
  assert.equal(resolveServeConfig({}, {}).sports, undefined);
  assert.equal(resolveServeConfig({ sports: '' }, {}).sports, undefined);
  assert.deepEqual(resolveServeConfig({ sports: '4, 11,4' }, {}).sports, [4, 11]);
  assert.deepEqual(resolveServeConfig({}, { SIM_SPORTS: '38' }).sports, [38]);
  assert.deepEqual(
    resolveServeConfig({ sports: '3' }, { SIM_SPORTS: '38' }).sports,
    [3],
    'the flag wins over the environment',
  );
});

test('an id the catalog does not know, or not a number, stops the start with the option named', () => {
  for (const bad of ['9', 'nba', '4,x', '4;11']) {
    assert.throws(
      () => resolveServeConfig({ sports: bad }, {}),
      (err: unknown) => err instanceof ConfigError && /--sports/.test(err.message),
    );
  }
});
