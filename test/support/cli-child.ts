import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { scriptArgs } from './child-app';

const ROOT = join(__dirname, '..', '..');

/** What one run of the CLI printed, and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `nestjs-sqlite-queue <args>` as a real OS process, from this run's compiled JavaScript (lib/cli/main.ts
 * is in the child build), in `cwd` (default: the repository), and resolves once it exits.
 */
export function runCliChild(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...scriptArgs('lib/cli/main.ts'), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI ${args.join(' ')} did not exit within ${options.timeoutMs ?? 60_000} ms; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
