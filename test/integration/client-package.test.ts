import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { batch, nbaEvent, nbaPrices } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The package as a user gets it: built by its own build (ESM and declarations), installed in a
 * separate project that type-checks against the declarations and runs against a live server.
 */
const run = promisify(execFile);
/** Tests run from the repository's root, compiled or not (as the other tests that read files). */
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const E = 'cb'.repeat(16);

let s: TestServer;
let dir: string;

before(async () => {
  s = await startTestServer();
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
  dir = mkdtempSync(join(tmpdir(), 'oddsbase-client-'));
});

after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the built package is imported, typed and used by a separate project', async () => {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg);
  cpSync(join(ROOT, 'packages/client/package.json'), join(pkg, 'package.json'));
  await run(process.execPath, [join(ROOT, 'packages/client/build.mjs'), '--outDir', join(pkg, 'dist')]);

  // What ships is the client's own modules: one flat folder, every import inside it, no server
  // module and no TypeBox (the wire types are written out in full in types.d.ts).
  const shipped = readdirSync(join(pkg, 'dist'), { recursive: true, withFileTypes: true });
  assert.ok(
    shipped.every((f) => f.isFile()),
    'no folders: nothing from outside src/',
  );
  const ownModules = new Set(
    readdirSync(join(ROOT, 'packages/client/src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3)),
  );
  assert.deepEqual(
    new Set(shipped.map((f) => f.name.replace(/\.(d\.ts|js)$/, ''))),
    ownModules,
    'a .js and a .d.ts per module of src/, nothing else',
  );
  for (const f of shipped) {
    const text = readFileSync(join(f.parentPath, f.name), 'utf8');
    const specifiers = [...text.matchAll(/\bfrom\s+["']([^"']+)["']/g)].map((m) => m[1]!);
    for (const spec of specifiers) {
      assert.match(spec, /^\.\/[\w-]+\.(js|ts)$/, `${f.name} imports ${spec}: only the package's own modules`);
    }
  }
  assert.doesNotMatch(readFileSync(join(pkg, 'dist/types.d.ts'), 'utf8'), /\bimport\b|Static</);

  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules/@oddsbase'), { recursive: true });
  symlinkSync(pkg, join(app, 'node_modules/@oddsbase/client'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        noEmit: true,
        types: [],
      },
    }),
  );
  // The declarations carry the server's shapes: a field's type is known, and a wrong use fails.
  writeFileSync(
    join(app, 'typed.ts'),
    [
      'import {',
      '  OddsbaseClient, type Event, type MarketPrice, type Reply, type EventsEnvelope, type V1MoneylineFamily,',
      "} from '@oddsbase/client';",
      "const c = new OddsbaseClient({ baseUrl: 'http://127.0.0.1:1', key: 'k' });",
      "const r: Promise<Reply<EventsEnvelope>> = c.events(4, '2026-01-01');",
      'const sportOf = (e: Event): number => e.sport_id;',
      "const history: Promise<Reply<V1MoneylineFamily>> = c.v1.lineFamily(1, 'moneyline');",
      'const closed = (p: MarketPrice): boolean => p.closed_at !== "";',
      'export { r, sportOf, history, closed };',
    ].join('\n'),
  );
  writeFileSync(
    join(app, 'wrong.ts'),
    "import type { Event } from '@oddsbase/client';\nexport const name = (e: Event): number => e.event_id;\n",
  );
  // One type check of both files (the compiler's start is most of its time): every error it finds
  // is in the wrong use, so the right use passes.
  const checked = await run(process.execPath, [TSC, '-p', app], { cwd: app }).then(
    () => '',
    (err: { stdout: string }) => err.stdout,
  );
  const errors = checked.split('\n').filter((line) => line.includes('error TS'));
  assert.ok(errors.length > 0, 'the wrong use fails the type check');
  for (const line of errors) assert.match(line, /^wrong\.ts\(.*TS2322/, checked);

  writeFileSync(
    join(app, 'main.mjs'),
    [
      "import { OddsbaseClient, NotFoundError } from '@oddsbase/client';",
      'const c = new OddsbaseClient({ baseUrl: process.env.BASE, key: process.env.KEY });',
      'const r = await c.event(process.env.EVENT);',
      "const missing = await c.event('f'.repeat(32)).catch((e) => e);",
      'console.log(JSON.stringify({ id: r.data.events[0].event_id, points: r.usage.datapoints, notFound: missing instanceof NotFoundError }));',
    ].join('\n'),
  );
  const out = await run(process.execPath, [join(app, 'main.mjs')], {
    cwd: app,
    env: { ...process.env, BASE: s.url, KEY: s.key, EVENT: E },
  });
  assert.deepEqual(JSON.parse(out.stdout), { id: E, points: 16, notFound: true });
});
