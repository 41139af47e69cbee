import { type ChildProcess, spawn } from 'node:child_process';

/** How the child ended, and when (epoch ms). */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

export interface ServedChild {
  child: ChildProcess;
  /** Where it listens, as it printed it: `http://127.0.0.1:PORT`. */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** What it wrote to stdout so far. */
  stdout(): string;
  /** What it wrote to stderr so far. */
  stderr(): string;
  exited: Promise<Exit>;
}

/**
 * `oddsbase serve` in a child process, resolved once it prints where it listens. The system picks
 * the port (`--port 0`): a port found free beforehand can be taken by another test's server during
 * the tens of seconds a history fill lasts, and the child then dies of EADDRINUSE.
 */
export function serveChild(
  args: string[],
  opts: {
    env?: Record<string, string>;
    nodeFlags?: string[];
    timeoutMs?: number;
    /** The checkout whose bin/oddsbase.js runs (the working directory's by default). */
    cwd?: string;
  } = {},
): Promise<ServedChild> {
  const child = spawn(
    process.execPath,
    [...(opts.nodeFlags ?? []), 'bin/oddsbase.js', 'serve', '--port', '0', '--host', '127.0.0.1', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env }, ...(opts.cwd ? { cwd: opts.cwd } : {}) },
  );
  const timeoutMs = opts.timeoutMs ?? 300_000;
  let out = '';
  let stdout = '';
  let stderr = '';
  const exited = new Promise<Exit>((r) => child.once('exit', (code, signal) => r({ code, signal, at: Date.now() })));
  return new Promise<ServedChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not listen within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    let listened = false;
    const onData = (b: Buffer) => {
      out += b.toString();
      const listening = listened ? null : /oddsbase listening on (\S+)/.exec(out);
      if (listening) {
        listened = true;
        clearTimeout(timer);
        resolve({ child, url: listening[1]!, output: () => out, stdout: () => stdout, stderr: () => stderr, exited });
      }
    };
    child.stdout!.on('data', (b: Buffer) => {
      stdout += b.toString();
      onData(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
      onData(b);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
}
