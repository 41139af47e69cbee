import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLAIN } from '../perf/switch.ts';

/** Set by bin/bundle.js in a bundle: the package root of the sources it was made from. */
declare const __ODDSBASE_ROOT__: string | undefined;

/**
 * The package's root directory: the one a bundle was made from (bin/oddsbase.js), else that of the
 * nearest package.json above this module (the source tree's).
 */
export function packageRoot(): string {
  if (typeof __ODDSBASE_ROOT__ === 'string') return __ODDSBASE_ROOT__;
  return fileURLToPath(new URL('.', nearestPackageJson()));
}

/** The version of the nearest package.json above this module. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(nearestPackageJson(), 'utf8')) as { version: string }).version;
}

/**
 * A hash of the code that runs: every source file under src/, the V8 version and the speed wall's
 * switch. What one run saved of its memory (a board snapshot) is taken back only by the same code;
 * undefined when the sources cannot be read.
 */
export function codeVersion(): string | undefined {
  // The code of a process does not change while it runs: hashed once.
  if (hashed !== null) return hashed;
  hashed = hashSources();
  return hashed;
}

let hashed: string | undefined | null = null;

function hashSources(): string | undefined {
  const hash = createHash('sha256').update(`${process.versions.v8}|${PLAIN ? 'plain' : 'tricks'}`);
  try {
    const src = join(packageRoot(), 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .sort();
    for (const f of files) hash.update(f).update(readFileSync(join(src, f)));
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}

function nearestPackageJson(): URL {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return file;
    if (dir.pathname === '/') throw new Error(`no package.json above ${import.meta.url}`);
  }
}
