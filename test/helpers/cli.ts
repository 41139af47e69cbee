import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The command's entry point. Beside the compiled tests, the compiled sources (plain JavaScript whose
 * coverage maps back to src/); run from the sources, bin/oddsbase.js as a user runs it. Either costs
 * about a third of the CPU of transpiling the server through tsx at every start.
 */
const ENTRY = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('../../src/cli/main.js', import.meta.url))
  : 'bin/oddsbase.js';

/** Runs `oddsbase ARGS` and resolves with its exit code and output, whether it succeeded or not. */
export async function oddsbase(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ENTRY, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
