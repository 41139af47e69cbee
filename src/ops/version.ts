import { readFileSync } from 'node:fs';

/**
 * The version of the nearest package.json above this module: the source tree's, or above its
 * bundle (bin/oddsbase.js).
 */
export function packageVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    try {
      return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { version: string }).version;
    } catch (err) {
      if (dir.pathname === '/' || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
