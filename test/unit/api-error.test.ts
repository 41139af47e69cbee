import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, badRequest } from '../../src/projection/errors.ts';

const frames = (stack: string | undefined) => (stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).length;

test('an ApiError is an answer: it carries its status and body, and no stack is walked for it', () => {
  const err = new ApiError(429, { error: 'Rate limit exceeded', limit: 10 }, { 'Retry-After': '1' });
  assert.equal(err.statusCode, 429);
  assert.equal(err.message, 'Rate limit exceeded');
  assert.deepEqual(err.headers, { 'Retry-After': '1' });
  assert.ok(err instanceof Error);
  assert.equal(frames(err.stack), 0, err.stack);
  assert.equal(frames(badRequest('bad date').stack), 0);
});

test('the stack trace limit is the process-wide one again after an ApiError is made', () => {
  const limit = Error.stackTraceLimit;
  new ApiError(400, { message: 'x' });
  assert.equal(Error.stackTraceLimit, limit);
  assert.ok(frames(new Error('a fault').stack) > 0, 'other errors keep their stacks');
});
