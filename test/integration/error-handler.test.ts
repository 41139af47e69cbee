import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AccessControl } from '../../src/access/access-control.ts';
import { Authenticator } from '../../src/access/authenticator.ts';
import { MemoryCounters } from '../../src/access/counters/memory-counters.ts';
import type { KeyStore } from '../../src/access/keys.ts';
import { Board } from '../../src/board/board.ts';
import { ChangeFeed } from '../../src/board/change-feed.ts';
import { DelayedBoards } from '../../src/board/delayed-boards.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { buildApp } from '../../src/http/app.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

const noKeys: KeyStore = {
  insert() {},
  findByHash: () => undefined,
  list: () => [],
  revoke: () => 0,
  count: () => 0,
};

test('an unexpected failure is a 500 with a message, and the server keeps serving', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-err-'));
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  const board = new Board();
  const bus = new MemoryBus();
  const feed = new ChangeFeed(store, bus, 0);
  const boards = new DelayedBoards(board, store, bus);
  const app = await buildApp({
    board,
    boards,
    feed,
    store,
    history: new SqliteHistoryStore(db),
    auth: new Authenticator(noKeys),
    access: new AccessControl(new MemoryCounters()),
  });
  t.after(() => {
    boards.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  app.get('/boom', { config: { public: true } }, async () => {
    throw new Error('secret internals');
  });
  t.after(() => app.close());
  const r = await app.inject({ method: 'GET', url: '/boom' });
  assert.equal(r.statusCode, 500);
  assert.deepEqual(r.json(), { message: 'internal server error' });
  assert.equal((await app.inject({ method: 'GET', url: '/api/v2/sports' })).statusCode, 200);
});

test('the key query parameter never reaches the logs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-log-'));
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  const board = new Board();
  const bus = new MemoryBus();
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const boards = new DelayedBoards(board, store, bus);
  const app = await buildApp({
    board,
    boards,
    feed: new ChangeFeed(store, bus, 0),
    store,
    history: new SqliteHistoryStore(db),
    auth: new Authenticator(noKeys),
    access: new AccessControl(new MemoryCounters()),
    log: { level: 'info', stream },
  });
  t.after(async () => {
    await app.close();
    boards.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await app.inject({ method: 'GET', url: '/api/v2/markets?key=ob_topsecret&x=1' });
  await app.inject({ method: 'GET', url: '/api/v2/sports?KEY=ob_topsecret' });
  const all = lines.join('');
  assert.ok(all.includes('[redacted]'), all);
  assert.ok(!all.includes('ob_topsecret'), all);
});
