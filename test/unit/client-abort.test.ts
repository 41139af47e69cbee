import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { OddsbaseClient } from '../../packages/client/src/index.ts';

/**
 * An abort ends a request at once even when fetch does not honour it, as Node's fetch sometimes
 * does not (a body read aborted part way, nodejs/node#56917; a request's link to its signal
 * dropped by a collection, nodejs/node#55428): here fetch ignores the signal altogether.
 */

/** Rejects if `p` has not settled within `ms`; otherwise settles as `p` does. */
async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const aborted = (err: unknown) => err instanceof Error && err.name === 'AbortError';

test('a request whose answer never comes, its signal ignored by fetch: the abort rejects it', async () => {
  let asked = 0;
  const client = new OddsbaseClient({
    baseUrl: 'http://upstream.invalid',
    key: 'ob_x',
    fetch: () => {
      asked++;
      return new Promise<Response>(() => undefined);
    },
  });
  const stop = new AbortController();
  const request = client.sports({ signal: stop.signal });
  await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await assert.rejects(within(request, 1000), aborted);
  assert.equal(asked, 1, 'an aborted request is not retried');
});

test('a body that stops half way, its signal ignored: the abort rejects the read', async () => {
  const client = new OddsbaseClient({
    baseUrl: 'http://upstream.invalid',
    key: 'ob_x',
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"sports":['));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      ),
  });
  const stop = new AbortController();
  const request = client.sports({ signal: stop.signal });
  await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await assert.rejects(within(request, 1000), aborted);
});

test('a signal aborted before the request: rejected without waiting for fetch', async () => {
  const client = new OddsbaseClient({
    baseUrl: 'http://upstream.invalid',
    key: 'ob_x',
    fetch: () => new Promise<Response>(() => undefined),
  });
  await assert.rejects(within(client.sports({ signal: AbortSignal.abort() }), 1000), aborted);
});

test('without an abort, the answer is the answer', async () => {
  const client = new OddsbaseClient({
    baseUrl: 'http://upstream.invalid',
    key: 'ob_x',
    fetch: async () => Response.json({ sports: [] }),
  });
  const reply = await client.sports({ signal: new AbortController().signal });
  assert.deepEqual(reply.data, { sports: [] });
});

test("requests that share one signal leave no abort listener on it once they end (Node's fetch keeps its own until a collection)", async () => {
  const server = createServer((_req, res) => res.end('{"sports":[]}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new OddsbaseClient({ baseUrl: `http://127.0.0.1:${port}`, key: 'ob_x' });
    const stop = new AbortController();
    for (let i = 0; i < 50; i++) await client.sports({ signal: stop.signal });
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
    // Still followed while a request runs: an abort ends it.
    const pending = client.sports({ signal: stop.signal });
    stop.abort();
    await assert.rejects(within(pending, 1000), aborted);
  } finally {
    server.close();
  }
});
