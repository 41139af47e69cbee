import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** npm start's node flags (the tests run from the project's folder): the heap cap under which V8 picks its own growth. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((t) => t.startsWith('--max-'));
}

async function fullCollections(plain: boolean): Promise<{ majors: number; bytes: number }> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const script = fileURLToPath(new URL(`../helpers/heap-growth-gcs${ext}`, import.meta.url));
  const flags = process.execArgv.filter((a) => !a.startsWith('--test') && !a.startsWith('--max-'));
  const { stdout } = await promisify(execFile)(process.execPath, [...startFlags(), ...flags, script], {
    env: { ...process.env, ODDSBASE_PLAIN: plain ? '1' : '0' },
  });
  return JSON.parse(stdout) as { majors: number; bytes: number };
}

test("a writer's heap grows further between full collections: under npm start's cap they come less often", async () => {
  assert.ok(
    startFlags().some((f) => f.startsWith('--max-old-space-size=')),
    'npm start caps the heap',
  );
  const [grown, plain] = await Promise.all([fullCollections(false), fullCollections(true)]);
  assert.equal(grown.bytes, plain.bytes, 'the same work');
  assert.ok(plain.majors >= 4, `the workload needs full collections under the cap (${plain.majors})`);
  assert.ok(grown.majors <= plain.majors * 0.7, `${grown.majors} full collections against V8's own ${plain.majors}`);
});
