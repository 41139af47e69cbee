import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The directory of the nearest package.json above this module: the source tree's, or the one above
 * its bundle (bin/oddsbase.js, which bundles into node_modules/.cache).
 */
export function packageRoot(): string {
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
