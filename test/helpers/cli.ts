import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/interfaces/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const REPO = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO, 'bin', 'moon.js');

/** Run the CLI in-process with captured stdout/stderr and a controlled environment. */
export async function runMoon(args: string[], env: Record<string, string | undefined> = {}, stdin = ''): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    {
      out: (text) => {
        stdout += text.endsWith('\n') ? text : `${text}\n`;
      },
      err: (text) => {
        stderr += text.endsWith('\n') ? text : `${text}\n`;
      },
      isTTY: false,
      readStdin: async () => stdin,
    },
    { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...env },
  );
  return { code, stdout, stderr };
}

/** Run the built CLI (bin/moon.js → dist/) as a real child process, in `options.cwd` when given. */
export function spawnMoon(args: string[], env: Record<string, string | undefined> = {}, options: { cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      // Hooks run in their own process unless a test asks for the hook server (test/hooks/hook-server.test.ts):
      // a server started by every test's home would outlive it.
      env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_HOOKS_SERVER: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

export function makeTempDir(prefix = 'moon-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
