import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, makeTempDir, spawnMoon } from '../helpers/cli.js';

/**
 * `moon watch --daemon` and a Puffin history: the file events of `.puffin/history.json` (written whole by each
 * save) wake a cycle that indexes it, and the next save re-indexes the conversation that changed; other JSON
 * files under the root are not transcripts and are left alone.
 */
const FIXTURE = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('moon watch --daemon on a Puffin history', () => {
  test('indexes the history when it is written, and the conversation an edit changed when it is saved again', async () => {
    const dir = makeTempDir('moon-daemon-puffin-');
    cleanups.push(dir.cleanup);
    const home = join(dir.path, 'home');
    const sources = join(dir.path, 'sources');
    mkdirSync(home, { recursive: true });
    mkdirSync(join(sources, 'proj', '.puffin'), { recursive: true });
    writeFileSync(join(home, 'moon.toml'), '[watcher]\npoll_interval_secs = 600\ndebounce_ms = 150\ncooldown_secs = 0\n');
    const env = { MOON_HOME: home, MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
    const daemon = spawn(process.execPath, [BIN, 'watch', '--daemon'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    cleanups.push(() => daemon.kill('SIGKILL'));
    await waitFor('the watcher to start', async () => existsSync(join(home, 'state', 'watcher.json')));
    const recalls = async (query: string, sessionId: string): Promise<boolean> => {
      const run = await spawnMoon(['recall', query, '--json'], env);
      return run.code === 0 && (JSON.parse(run.stdout) as { matches: { metadata: { session_id: string } }[] }).matches.some((match) => match.metadata.session_id === sessionId);
    };

    writeFileSync(join(sources, 'proj', 'package.json'), '{"name": "proj"}');
    const history = join(sources, 'proj', '.puffin', 'history.json');
    writeFileSync(history, FIXTURE);
    await waitFor('the history to be recallable', () => recalls('Three-Column Swimlane Layout', 'puffin-mjgemr768h20qxza1'));

    const edited = JSON.parse(FIXTURE) as { branches: Record<string, { prompts: { id: string; content: string }[] }> };
    edited.branches.tmp!.prompts[0]!.content += '\nPlease also port the albatross scheduler.';
    writeFileSync(history, JSON.stringify(edited, null, 2));
    await waitFor('the edited conversation to be recallable', () => recalls('albatross scheduler', 'puffin-mjhiejc9sl109fl94'));

    const stop = await spawnMoon(['stop'], env);
    expect(stop.code, stop.stderr).toBe(0);
    const log = readFileSync(join(home, 'logs', 'moon-watch.log'), 'utf8');
    expect(log).toContain('"event":"indexed"');
    // package.json is no transcript: never picked up, so never an error.
    expect(log).not.toContain('package.json');
  }, 90_000);
});
