import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `oddsbase ARGS` as a user does (bin/oddsbase.js, which runs a bundle of the sources: about a
 * third of the CPU of transpiling them through tsx) and resolves with its exit code and output,
 * whether it succeeded or not.
 */
export async function oddsbase(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/oddsbase.js', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
