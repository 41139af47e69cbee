import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { operationId } from '../../src/http/app.ts';
import { startTestServer } from '../helpers/server.ts';

interface Operation {
  operationId?: string;
  security?: unknown[];
}

test('the OpenAPI document names every operation once, gives the servers and the package version, and locks only keyed routes', async () => {
  const s = await startTestServer();
  try {
    const doc = (await s.get('/openapi.json', {})).body as {
      info: { version: string };
      servers?: { url: string }[];
      security: unknown[];
      paths: Record<string, Record<string, Operation>>;
    };
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(doc.info.version, pkg.version);
    assert.deepEqual(doc.servers?.map((x) => x.url), ['/']);
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    assert.ok(ids.length > 40, `${ids.length} operations`);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)), 'every operation has an id');
    assert.equal(new Set(ids).size, ids.length, 'no id twice');
    // Keyless routes carry an empty security list; the rest inherit the document's key schemes.
    assert.deepEqual(doc.paths['/api/v2/sports']!.get!.security, []);
    assert.deepEqual(doc.paths['/api/v2/affiliates']!.get!.security, []);
    assert.equal(doc.paths['/api/v2/sports/{sportID}/events/{date}']!.get!.security, undefined);
    assert.ok(doc.security.length > 0);
  } finally {
    await s.close();
  }
});

test('operation ids follow the path, parameters named after "by"', () => {
  assert.equal(operationId('GET', '/api/v2/sports/:sportID/events/:date'), 'getV2SportsBySportIdEventsByDate');
  assert.equal(operationId('POST', '/api/v2/ws/token'), 'postV2WsToken');
  assert.equal(operationId('GET', '/api/v2/markets/delta'), 'getV2MarketsDelta');
});
