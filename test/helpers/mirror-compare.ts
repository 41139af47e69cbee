import assert from 'node:assert/strict';
import { OddsbaseClient } from '../../packages/client/src/index.ts';
import type { TestServer } from './server.ts';

/**
 * A simulator upstream and its mirror compared answer by answer (test/slow/mirror*.test.ts): both
 * servers asked the same path, each log's own cursor left out, and the fields that differ named.
 */

const DAY_MS = 86_400_000;

export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A probe of /readyz: its body once it answers 200. */
export const ready = (s: TestServer) => async () => {
  const r = await s.get('/readyz', {});
  return r.status === 200 ? r.body : undefined;
};

/** The days a mirror takes: yesterday and today (UTC). */
export const mirroredDates = () =>
  [Date.now() - DAY_MS, Date.now()].map((ms) => new Date(ms).toISOString().slice(0, 10));

/** Both servers' answers to a path, without the meta that names each log's own cursor. */
export async function both(upstream: TestServer, mirror: TestServer, path: string): Promise<[unknown, unknown]> {
  const [a, b] = await Promise.all([upstream.get(path), mirror.get(path)]);
  assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
  assert.equal(b.status, 200, `${path} on the mirror: ${JSON.stringify(b.body)}`);
  return [strip(a.body), strip(b.body)];
}

function strip(body: any): unknown {
  if (body && typeof body === 'object' && 'meta' in body) {
    const { delta_last_id: _d, epoch: _e, ...meta } = body.meta ?? {};
    return { ...body, meta };
  }
  return body;
}

/** Where two answers differ (JSON paths, at most 20), so a failure names the fields. */
function differences(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= 20) return out;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (a !== b) out.push(`${path}: ${JSON.stringify(a)} upstream, ${JSON.stringify(b)} mirror`);
    return out;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  if (JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b)) && !Array.isArray(a)) {
    out.push(`${path}: keys ${Object.keys(a).join(',')} upstream, ${Object.keys(b).join(',')} mirror`);
  }
  for (const k of keys) differences((a as any)[k], (b as any)[k], `${path}/${k}`, out);
  return out;
}

/** The mirror's answer equals the upstream's; a failure names the fields that differ. */
export function same(mirrored: unknown, upstreamBody: unknown, what: string): void {
  assert.deepEqual(differences(upstreamBody, mirrored), [], what);
  assert.deepEqual(mirrored, upstreamBody, what);
}

/** The market ids the upstream prices for a sport on a day, in groups of 12. */
export async function marketGroups(upstream: TestServer, sportId: number, date: string): Promise<number[][]> {
  const r = await upstream.get(`/api/v2/sports/${sportId}/markets/${date}`);
  const ids = [...new Set((r.body[String(sportId)] ?? []).map((d: { id: number }) => d.id) as number[])].sort(
    (a, b) => a - b,
  );
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += 12) out.push(ids.slice(i, i + 12));
  return out.length > 0 ? out : [[1, 2, 3]];
}

/**
 * Waits for the upstream's history to be whole, stops its simulator and waits for the mirror to
 * have read the upstream to its head.
 */
export async function settle(upstream: TestServer, mirror: TestServer): Promise<void> {
  // The past part of the upstream's first fill commits in the background: it must be over too.
  await until('the upstream history', async () => {
    const r = await upstream.get('/readyz', {});
    return r.body.history === 'complete' ? true : undefined;
  });
  await upstream.server.simulator?.stop();
  const head = upstream.server.board.head;
  const client = new OddsbaseClient({ baseUrl: upstream.url, key: upstream.key });
  const cursor = (await client.eventDelta({})).data.meta.delta_last_id;
  assert.ok(head > 0 && cursor);
  // Polls after the upstream stopped until two in a row commit nothing: a backlog longer than one
  // page of a delta (a loaded machine, a fill's last rows) takes polls of its own to read.
  let synced = Date.now();
  let held = -1;
  let quiet = 0;
  await until('the mirror to read everything the stopped upstream committed', async () => {
    const m = mirror.server.services.mirror!;
    if (m.state.lastSyncMs <= synced) return undefined;
    synced = m.state.lastSyncMs;
    quiet = mirror.server.board.head === held ? quiet + 1 : 0;
    held = mirror.server.board.head;
    return quiet >= 2 ? true : undefined;
  });
}

/**
 * The prices of the mirrored days, field by field: each events snapshot, openers and closing of a
 * sport's day in groups of 12 markets with every period, and each event's best line.
 */
export async function samePrices(upstream: TestServer, mirror: TestServer, sportId: number): Promise<void> {
  for (const date of mirroredDates()) {
    for (const ids of await marketGroups(upstream, sportId, date)) {
      const q = `market_ids=${ids.join(',')}&include=all_periods`;
      const [a, b] = await both(upstream, mirror, `/api/v2/sports/${sportId}/events/${date}?${q}`);
      assert.ok((a as any).events.length > 0, `upstream has events on ${date}`);
      same(b, a, `events ${date} ${ids}`);
      const [x, y] = await both(upstream, mirror, `/api/v2/sports/${sportId}/openers/${date}?${q}`);
      same(y, x, `openers ${date} ${ids}`);
      const [c, d] = await both(upstream, mirror, `/api/v2/sports/${sportId}/closing/${date}?${q}`);
      same(d, c, `closing ${date} ${ids}`);
    }
    const [a] = await both(upstream, mirror, `/api/v2/sports/${sportId}/events/${date}`);
    for (const e of (a as any).events) {
      const [x, y] = await both(upstream, mirror, `/api/v2/events/${e.event_id}/best-line`);
      same(y, x, `best line of ${e.event_id}`);
    }
  }
}
