import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, resolveServeConfig } from '../../src/config.ts';

/** `--redis-url` (REDIS_URL): the cluster's bus and shared counters; none is the embedded server. */

test('no --redis-url is the embedded server; the flag wins over REDIS_URL', () => {
  assert.equal(resolveServeConfig({}, {}).redisUrl, undefined);
  assert.equal(resolveServeConfig({}, { REDIS_URL: '' }).redisUrl, undefined);
  assert.equal(resolveServeConfig({}, { REDIS_URL: 'redis://10.0.0.5:6379' }).redisUrl, 'redis://10.0.0.5:6379');
  assert.equal(
    resolveServeConfig({ redisUrl: 'rediss://:secret@cache.internal:6380/2' }, { REDIS_URL: 'redis://10.0.0.5' })
      .redisUrl,
    'rediss://:secret@cache.internal:6380/2',
  );
});

test('a URL that is not a Redis one stops the start, naming the option and never the password', () => {
  for (const bad of [
    'localhost:6379',
    'http://127.0.0.1:6379',
    'redis://',
    'redis://host/cache',
    'redis://:pw@@@ host',
  ]) {
    assert.throws(
      () => resolveServeConfig({ redisUrl: bad }, {}),
      (err: unknown) => err instanceof ConfigError && /--redis-url/.test(err.message) && !/pw/.test(err.message),
      bad,
    );
  }
});
