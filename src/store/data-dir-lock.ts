import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** The process that holds a data directory, as its lock file records it. */
export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

/** Another process writes to the data directory; the message names it and says what to do. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder
        ? `the data directory ${dataDir} is in use by ${holder.command} (pid ${holder.pid}` +
            `${holder.host === hostname() ? '' : ` on ${holder.host}`}, started ${holder.startedAt}); ` +
            'stop it or choose another --data-dir'
        : `the data directory ${dataDir} is in use: its lock file ${lockPath} cannot be read; ` +
            'if no server runs on it, delete that file',
    );
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still this lock's; safe to call twice. */
  release(): void;
}

export const LOCK_FILE = 'oddsbase.lock';

/** Data directories this process holds, by absolute path: its own pid in a lock file is not stale then. */
const held = new Set<string>();

/**
 * Takes the data directory for one writer: a lock file created atomically ('wx'), holding the pid,
 * host and start time, removed on release or when the process exits. A lock whose process is gone
 * (killed, crashed) is taken over. `keys` commands take it only to upgrade an older store: SQLite
 * serialises their small writes with the server's, while two servers would race each other's id
 * sequence.
 */
export function lockDataDir(dataDir: string, command = 'oddsbase serve'): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const key = resolve(path);
  const text = `${JSON.stringify({
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    command,
  } satisfies LockHolder)}\n`;

  // A few rounds: each either creates the file, finds it held, or clears a stale one and retries.
  for (let round = 0; !create(path, text); round++) {
    const seen = read(path);
    if (seen === undefined) {
      // Gone between our attempt and our read: released, or cleared by another start.
      if (round < 3) continue;
      throw new DataDirInUseError(dataDir, path, undefined);
    }
    const holder = parse(seen);
    if (round >= 3 || !holder || !isStale(holder, key)) throw new DataDirInUseError(dataDir, path, holder);
    moveAside(path, seen);
  }

  held.add(key);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(key);
    process.off('exit', release);
    // Only our own file: had we been presumed dead, the lock now belongs to whoever took it over.
    if (read(path) === text) unlinkSync(path);
  };
  process.on('exit', release);
  return { path, release };
}

function create(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parse(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isInteger(h.pid) || typeof h.host !== 'string') return undefined;
    return {
      pid: h.pid!,
      host: h.host,
      startedAt: String(h.startedAt ?? 'at an unknown time'),
      command: String(h.command ?? 'another process'),
    };
  } catch {
    // Empty or cut short: its writer is between creating and filling it, so it counts as held.
    return undefined;
  }
}

function isStale(holder: LockHolder, key: string): boolean {
  // A pid on another host (a shared mount) cannot be checked from here.
  if (holder.host !== hostname()) return false;
  // Our own pid without our own lock: left by an earlier process that had the same pid (a container's).
  if (holder.pid === process.pid) return !held.has(key);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/**
 * Removes a stale lock file whose text is `stale`. Renaming is atomic, so of several processes
 * clearing it at once exactly one moves the stale file; one that moved a fresh lock instead (taken
 * over meanwhile by another) puts it back.
 */
function moveAside(path: string, stale: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (read(aside) !== stale) linkSync(aside, path);
  } catch (err) {
    // EEXIST: a third process took the lock meanwhile; the caller's next round finds it held.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(aside);
  }
}
