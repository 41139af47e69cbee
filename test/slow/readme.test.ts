import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { serveChild } from '../helpers/serve-child.ts';

const run = promisify(execFile);

/** The README's first shell block of "A first look": what a new user pastes after `npm start`. */
function firstLookBlock(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## A first look'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the README has a shell block under "A first look"');
  return block;
}

test("the README's first-look examples run as written against a fresh start", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-readme-'));
  const server = await serveChild(['--data-dir', dataDir]);
  t.after(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const hostPort = server.url.replace(/^http:\/\//, '');
  const answers = mkdtempSync(join(tmpdir(), 'oddsbase-readme-answers-'));
  t.after(() => rmSync(answers, { recursive: true, force: true }));
  // As written, except for the port (tests listen on a free one), and curl wrapped so that an HTTP
  // error fails the script and every answer is kept for the checks below.
  const wrapper = `curl() { local out; out=$(command curl -f "$@") || return $?; printf '%s' "$out" > "$(mktemp "${answers}/XXXXXX")"; printf '%s\\n' "$out"; }`;
  const script = `${wrapper}\n${firstLookBlock().replaceAll('localhost:8080', hostPort)}`;
  await run('bash', ['-euo', 'pipefail', '-c', script], {
    // keys demo reads the data directory the server was given.
    env: { ...process.env, DATA_DIR: dataDir },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  const files = readdirSync(answers);
  assert.ok(files.length >= 15, `every curl answered: ${files.length}`);
  for (const file of files) {
    const text = readFileSync(join(answers, file), 'utf8');
    assert.doesNotThrow(() => JSON.parse(text), `not JSON: ${text.slice(0, 200)}`);
  }
});
