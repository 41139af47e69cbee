import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cursorToUuid, uuidToCursor } from '../../src/domain/uuid-cursor.ts';

test('a cursor is a UUIDv7 that holds its change id', () => {
  const u = cursorToUuid(123_456_789, Date.parse('2026-11-23T10:00:00Z'));
  assert.match(u, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(uuidToCursor(u), 123_456_789);
  assert.equal(Number.parseInt(u.replace(/-/g, '').slice(0, 12), 16), Date.parse('2026-11-23T10:00:00Z'));
});

test('cursors sort like the change log', () => {
  const t = Date.parse('2026-11-23T10:00:00Z');
  const list = [
    cursorToUuid(1, t),
    cursorToUuid(2, t),
    cursorToUuid(10, t),
    cursorToUuid(11, t + 1),
    cursorToUuid(300, t + 5000),
  ];
  assert.deepEqual([...list].sort(), list);
});

test('the nil UUID is the first cursor, before every change', () => {
  assert.equal(uuidToCursor('00000000-0000-0000-0000-000000000000'), 0);
  assert.ok('00000000-0000-0000-0000-000000000000' < cursorToUuid(1, 0), 'it sorts before every cursor');
});

test('integers and foreign UUIDs are not cursors', () => {
  assert.equal(uuidToCursor('12345'), undefined);
  assert.equal(uuidToCursor('0192f0c4-8a3e-4b6f-9c4d-2a5e6f708192'), undefined);
  assert.equal(uuidToCursor('not-a-uuid'), undefined);
});
