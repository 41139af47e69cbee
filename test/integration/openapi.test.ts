import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { operationId } from '../../src/http/openapi.ts';
import { startTestServer } from '../helpers/server.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema: Record<string, unknown>;
}

interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Parameter[];
}

/** Parameters that are text in the spec: ids of the string type, cursors, a line value. */
const TEXT_PARAMETERS = new Set(['eventID', 'lineID', 'event_id', 'cursor', 'last_event_uuid', 'last_id', 'line']);

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
    assert.deepEqual(
      doc.servers?.map((x) => x.url),
      ['/'],
    );
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    assert.ok(ids.length > 40, `${ids.length} operations`);
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)),
      'every operation has an id',
    );
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

test('every parameter is typed as the route reads it, lists as unexploded comma lists', async () => {
  const s = await startTestServer();
  try {
    const doc = (await s.get('/openapi.json', {})).body as { paths: Record<string, Record<string, Operation>> };
    const param = (path: string, name: string) =>
      doc.paths[path]!.get!.parameters!.find((p) => p.name === name) as Parameter;
    const events = '/api/v2/sports/{sportID}/events/{date}';
    assert.deepEqual(param(events, 'sportID').schema, { type: 'integer', minimum: 0 });
    assert.deepEqual(param(events, 'date').schema, { type: 'string', format: 'date' });
    const marketIds = param(events, 'market_ids');
    assert.deepEqual(marketIds.schema, {
      type: 'array',
      items: { type: 'integer', minimum: 0, maximum: 999_999_999 },
      maxItems: 12,
    });
    assert.equal(marketIds.style, 'form');
    assert.equal(marketIds.explode, false);
    assert.deepEqual(param(events, 'main_line').schema, { type: 'boolean', default: false });
    assert.deepEqual(param(events, 'offset').schema, { type: 'integer', minimum: -1440, maximum: 1440, default: 0 });
    assert.deepEqual(param(events, 'participant_type').schema, {
      type: 'string',
      enum: ['TYPE_TEAM', 'TYPE_PLAYER', 'TYPE_RESULT'],
    });
    assert.deepEqual(param(events, 'include').schema, {
      type: 'array',
      items: { type: 'string', enum: ['price_delta', 'all_periods'] },
    });
    const delta = '/api/v2/markets/delta';
    assert.deepEqual(param(delta, 'limit').schema, { type: 'integer', minimum: 1, maximum: 5000, default: 1000 });
    assert.equal(param(delta, 'last_id').required, true);
    assert.equal(param(delta, 'last_id').schema.type, 'integer');
    assert.equal(param('/api/v1/lines/best', 'event_ids').required, true);

    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const p of operation.parameters ?? []) {
          const where = `${path} ${p.in} ${p.name}`;
          assert.ok(!JSON.stringify(p.schema).includes('x-document-type'), `${where}: the annotation stays out`);
          const free = p.schema.type === 'string' && !p.schema.format && !p.schema.enum;
          assert.ok(!free || TEXT_PARAMETERS.has(p.name), `${where} is typed ${JSON.stringify(p.schema)}`);
          if (p.schema.type === 'array') assert.equal(p.explode, false, `${where} is a comma list`);
        }
      }
    }
  } finally {
    await s.close();
  }
});

test('operation ids follow the path, parameters named after "by"', () => {
  assert.equal(operationId('GET', '/api/v2/sports/:sportID/events/:date'), 'getV2SportsBySportIdEventsByDate');
  assert.equal(operationId('POST', '/api/v2/ws/token'), 'postV2WsToken');
  assert.equal(operationId('GET', '/api/v2/markets/delta'), 'getV2MarketsDelta');
});
