import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { lazyChildLogger } from '../../src/ops/logging.ts';

test("a request's lazy logger makes its child on the first line, which comes out as the child's would", () => {
  const lines: Record<string, unknown>[] = [];
  const parent = pino(
    { level: 'info', base: undefined, timestamp: false },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }),
  );
  let children = 0;
  const child = parent.child;
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;

  const quiet = lazyChildLogger(parent, { reqId: 'req-1' }, {});
  assert.equal(quiet.level, 'info');
  quiet.debug('below the level');
  assert.equal(children, 1, 'a line, even one below the level, makes the child');
  const idle = lazyChildLogger(parent, { reqId: 'req-2' }, {});
  assert.equal(idle.level, 'info');
  assert.equal(children, 1, 'no line, no child');

  const used = lazyChildLogger(parent, { reqId: 'req-3' }, {});
  used.error({ code: 7 }, 'failed %s', 'here');
  used.info('second');
  assert.equal(children, 2, 'one child for the request, whatever it logs');
  // A child of the request's logger keeps the request's bindings.
  used.child({ part: 'x' }).warn('nested');
  assert.deepEqual(lines, [
    { level: 50, reqId: 'req-3', code: 7, msg: 'failed here' },
    { level: 30, reqId: 'req-3', msg: 'second' },
    { level: 40, reqId: 'req-3', part: 'x', msg: 'nested' },
  ]);
});
