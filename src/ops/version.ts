import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

function nearestPackageJson(): URL {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return file;
    if (dir.pathname === '/') throw new Error(`no package.json above ${import.meta.url}`);
  }
}
