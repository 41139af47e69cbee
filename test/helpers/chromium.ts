import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium: the only browser this machine (and CI) can have; nothing is downloaded elsewhere. */
export const CHROMIUM = '/usr/bin/chromium';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Installs Debian's chromium when it is absent (CI runs as root on a clean machine, whose package
 * lists may not have been fetched yet).
 */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) as root`);
  }
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit' });
}

/** Builds the page (web/dist) when no build is there, as `npm ci` would have. */
export function ensurePageBuilt(): void {
  if (existsSync(join(ROOT, 'web', 'dist', 'index.html'))) return;
  execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export interface Chromium {
  /** A fresh context: its own cookies (so its own session), viewport as given. */
  context(opts?: { width?: number; height?: number; bypassCSP?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Chromium with the tier's flags; playwright gives each launch a new empty profile directory. */
export async function launchChromium(): Promise<Chromium> {
  ensureChromium();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context: (o = {}) =>
      browser.newContext({ viewport: { width: o.width ?? 1280, height: o.height ?? 900 }, bypassCSP: o.bypassCSP }),
    close: () => browser.close(),
  };
}
