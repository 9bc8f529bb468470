import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BIN, type CliRun, makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/** `moon recall` run inside a project's folder reads that project's sessions, says so, and widens on request. */
let temp: { path: string; cleanup: () => void };
let env: Record<string, string>;
let alpha: string;

function recallIn(cwd: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'recall', ...args], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

beforeAll(async () => {
  temp = makeTempDir('moon-recall-scope-');
  alpha = join(temp.path, 'work', 'alpha');
  const beta = join(temp.path, 'work', 'beta');
  mkdirSync(join(alpha, 'src'), { recursive: true });
  mkdirSync(beta, { recursive: true });
  const sources = join(temp.path, 'sources');
  mkdirSync(sources);
  // Look-alike sessions in two projects.
  for (const [id, cwd] of [['alpha-session', alpha], ['beta-session', beta]] as const) {
    writeFileSync(
      join(sources, `${id}.jsonl`),
      claudeSession({
        sessionId: id,
        cwd,
        turns: [
          { role: 'user', at: '2026-02-20T10:00:00Z', text: 'the deploy pipeline fails on the lint step again' },
          { role: 'assistant', at: '2026-02-20T10:01:00Z', text: 'The lint step fails because eslint is missing from devDependencies.' },
        ],
      }),
    );
  }
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  expect((await runMoon(['index', sources], env)).code).toBe(0);
}, 60_000);

afterAll(() => temp.cleanup());

const sessionsOf = (run: CliRun): string[] => (JSON.parse(run.stdout) as { matches: { metadata: { session_id: string } }[] }).matches.map((match) => match.metadata.session_id).sort();

test('inside a project (or a folder below it) only its sessions, with a note; --all-projects widens', async () => {
  const inside = await recallIn(join(alpha, 'src'), ['lint step fails', '--json']);
  expect(inside.code).toBe(0);
  expect(sessionsOf(inside)).toEqual(['alpha-session']);
  expect((JSON.parse(inside.stdout) as { notes: string[] }).notes.join(' ')).toMatch(/scoped to the 1 session of .*alpha.*--all-projects/);
  const text = await recallIn(alpha, ['lint step fails']);
  expect(text.stderr).toMatch(/note: scoped to the 1 session/);
  expect(sessionsOf(await recallIn(alpha, ['lint step fails', '--json', '--all-projects']))).toEqual(['alpha-session', 'beta-session']);
  // Naming a project is the caller's own choice.
  expect(sessionsOf(await recallIn(alpha, ['lint step fails', '--json', '--project', 'beta']))).toEqual(['beta-session']);
}, 60_000);

test('a folder no indexed session ran in leaves every project in reach', async () => {
  expect(sessionsOf(await recallIn(temp.path, ['lint step fails', '--json']))).toEqual(['alpha-session', 'beta-session']);
}, 60_000);
