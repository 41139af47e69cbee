import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A mirror stopped in the middle of a poll returns promptly, whatever the poll is waiting for: an
 * answer whose headers never come, a body cut off half way (which Node's fetch alone may never end),
 * a burst 429's Retry-After inside the client, or a cap's wait between polls. Each upstream here
 * holds its answer open for good, so only an abort ends the wait.
 */

/** Far below every wait held here (for good, or an hour), far above a close on a busy machine. */
const PROMPT_MS = 10_000;

interface HeldUpstream {
  url: string;
  /** Resolves once the mirror's first request is being held. */
  held: Promise<void>;
  requests: number;
  close(): Promise<void>;
}

/** An upstream whose every answer is `hold`: it may write part of an answer, never all of it. */
async function heldUpstream(hold: (res: ServerResponse, req: IncomingMessage) => void): Promise<HeldUpstream> {
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const up: HeldUpstream = { url: '', held, requests: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    up.requests++;
    hold(res, req);
    holding();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  up.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  up.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return up;
}

const opened: { mirror?: TestServer; upstream: HeldUpstream }[] = [];
after(async () => {
  for (const o of opened) {
    await o.mirror?.close();
    await o.upstream.close();
  }
});

/**
 * Starts a mirror of `upstream`, waits for its first request to be held (and for `check` of the
 * mirror then), and asserts that its stop returns promptly.
 */
async function stopWhileHeld(upstream: HeldUpstream, check?: (mirror: TestServer) => Promise<void>): Promise<void> {
  const entry: { mirror?: TestServer; upstream: HeldUpstream } = { upstream };
  opened.push(entry);
  entry.mirror = await startTestServer({ upstream: { url: upstream.url, key: 'ob_upstream', pollMs: 100 } });
  await upstream.held;
  // Time for the client to be inside the wait (reading the body, sleeping out a Retry-After).
  await new Promise((r) => setTimeout(r, 200));
  await check?.(entry.mirror);
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    entry.mirror.server.services.mirror!.stop().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROMPT_MS))),
  ]);
  clearTimeout(timer);
  assert.ok(stopped, `the mirror's stop did not return within ${PROMPT_MS} ms`);
}

test('an answer whose headers never come: the request is aborted', async () => {
  const upstream = await heldUpstream(() => undefined);
  await stopWhileHeld(upstream);
  assert.equal(upstream.requests, 1);
});

test('a body cut off half way: the read of it is abandoned', async () => {
  const upstream = await heldUpstream((res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
    // Enough of a delta page that the client is reading the body when the stop comes.
    res.write(`{"deltas":[${'{"id":"1"},'.repeat(500)}`);
  });
  await stopWhileHeld(upstream);
});

test("a burst 429's Retry-After, waited out inside the client: the wait ends at the stop", async () => {
  const upstream = await heldUpstream((res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '10' });
    res.end(JSON.stringify({ error: 'Rate limit exceeded', limit: 1, upgrade_url: '', upgrade_message: '' }));
  });
  await stopWhileHeld(upstream);
  assert.equal(upstream.requests, 1, 'the burst 429 is retried only after its Retry-After');
});

test("a cap's wait between polls (an hour): the wait ends at the stop", async () => {
  const upstream = await heldUpstream((res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
    res.end(
      JSON.stringify({
        error: 'Daily data point limit reached',
        limit: 1,
        used: 1,
        upgrade_url: '',
        upgrade_message: '',
      }),
    );
  });
  await stopWhileHeld(upstream, async (mirror) => {
    const ready = await mirror.get('/readyz', {});
    assert.equal(ready.status, 503);
    assert.match(ready.body.upstream, /^the upstream's daily cap is reached; asking again in 3600 s$/);
  });
  assert.equal(upstream.requests, 1, 'a cap 429 is not asked again');
});
