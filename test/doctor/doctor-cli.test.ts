import { chmodSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

interface Report {
  ok: boolean;
  problems: number;
  checks: { id: string; status: string; detail: string; fix?: string }[];
}

let root: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeAll(async () => {
  ({ path: root, cleanup } = makeTempDir('moon-doctor-cli-'));
  cpSync(join(REPO, 'examples'), join(root, 'sources'), { recursive: true });
  env = { HOME: join(root, 'home'), MOON_HOME: join(root, 'moon'), MOON_SOURCES: join(root, 'sources'), MOON_INDEX_WORKERS: '0' };
  const index = await spawnMoon(['index'], env);
  expect(index.code, index.stderr).toBe(0);
  const install = await spawnMoon(['install', 'claude-code'], env);
  expect(install.code, install.stderr).toBe(0);
});
afterAll(() => cleanup());

async function doctor(extra: Record<string, string> = {}): Promise<{ code: number; report: Report; text: string }> {
  const json = await spawnMoon(['doctor', '--json'], { ...env, ...extra });
  const text = await spawnMoon(['doctor'], { ...env, ...extra });
  expect(text.code).toBe(json.code);
  return { code: json.code, report: JSON.parse(json.stdout) as Report, text: text.stdout };
}

const check = (report: Report, id: string) => report.checks.find((item) => item.id === id);

describe('moon doctor (built CLI, temporary home)', () => {
  test('a healthy home exits 0: every check ok but the watcher, which is not running', async () => {
    const { code, report, text } = await doctor();
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.filter((item) => item.status === 'fail')).toEqual([]);
    for (const id of ['node', 'sqlite', 'config', 'home', 'permissions', 'sources', 'agent:claude-code', 'engine']) expect(check(report, id)?.status, id).toBe('ok');
    expect(check(report, 'agent:claude-code')!.detail).toBe('Claude Code: SessionStart hook, Stop hook, PreCompact hook, SessionEnd hook, mcpServers.moon run this moon');
    expect(check(report, 'agent:codex')!.status).toBe('skip');
    expect(check(report, 'watcher')).toMatchObject({ status: 'warn', fix: process.platform === 'win32' ? expect.any(String) : 'run `moon service install`' });
    expect(text).toMatch(/^ok {4}node {2,}Node\.js /m);
    expect(text).toMatch(/\n0 problems, 1 warning\n$/);
  });

  test('archives readable by others: exit 1 with the chmod to run', async () => {
    const archives = join(root, 'moon', 'archives');
    chmodSync(archives, 0o755);
    try {
      const { code, report, text } = await doctor();
      expect(code).toBe(1);
      expect(check(report, 'permissions')).toEqual({ id: 'permissions', status: 'fail', detail: `${archives} is 0755: other users can read your transcripts`, fix: `chmod -R go-rwx ${archives}` });
      expect(text).toContain(`FAIL  permissions        ${archives} is 0755`);
      expect(text).toContain(`fix: chmod -R go-rwx ${archives}`);
    } finally {
      chmodSync(archives, 0o700);
    }
  });

  test('a hook pointing at another moon is named, and `moon install` fixes it', async () => {
    const settings = join(root, 'home', '.claude', 'settings.json');
    const text = readFileSync(settings, 'utf8');
    writeFileSync(settings, text.replaceAll(JSON.stringify(join(REPO, 'bin', 'moon.js')).slice(1, -1), '/old/moon/bin/moon.js'));
    const broken = await doctor();
    expect(broken.code).toBe(1);
    expect(check(broken.report, 'agent:claude-code')).toMatchObject({ status: 'fail', fix: `run \`moon install claude-code --home ${join(root, 'moon')}\` to point it at this moon` });
    expect(check(broken.report, 'agent:claude-code')!.detail).toContain('runs another moon ("/usr');
    // The fix as doctor words it, --home after the agent.
    const fixed = await spawnMoon(['install', 'claude-code', '--home', join(root, 'moon')], env);
    expect(fixed.stdout).toContain('pointed the SessionStart hook at this moon');
    expect((await doctor()).code).toBe(0);
  });

  test('a source root that does not exist, a damaged index, an unreadable watcher lock', async () => {
    const sources = await doctor({ MOON_SOURCES: join(root, 'nowhere') });
    expect(check(sources.report, 'sources')).toMatchObject({ status: 'fail', detail: `source root ${join(root, 'nowhere')} does not exist` });

    const db = join(root, 'moon', 'moon.db');
    renameSync(db, `${db}.good`);
    writeFileSync(db, 'this is not a database, just text long enough to be read as a header of a sqlite file..........');
    try {
      const damaged = await doctor();
      expect(damaged.code).toBe(1);
      expect(check(damaged.report, 'engine')).toMatchObject({ status: 'fail', fix: 'run `moon rebuild` (it rebuilds the index from the raw archive)' });
    } finally {
      renameSync(`${db}.good`, db);
    }

    const lock = join(root, 'moon', 'logs', 'moon-watch.daemon.lock');
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, 'garbage');
    try {
      expect(check((await doctor()).report, 'watcher')).toMatchObject({ status: 'fail', detail: `the lock ${lock} cannot be read` });
    } finally {
      rmSync(lock, { force: true });
    }
  });

  test('an unreachable PostgreSQL database is named without its password', async () => {
    const { code, report, text } = await doctor({ MOON_DATABASE_URL: 'postgres://moon:hunter2@127.0.0.1:1/moon' });
    expect(code).toBe(1);
    expect(check(report, 'engine')).toMatchObject({ status: 'fail', fix: 'check store.url (MOON_DATABASE_URL), the password and that the server accepts connections from here' });
    expect(check(report, 'engine')!.detail).toMatch(/^PostgreSQL \(postgres:\/\/moon:\*\*\*@127\.0\.0\.1:1\/moon\) does not answer: /);
    expect(text).not.toContain('hunter2');
  });

  test('a moon.toml that does not load is a problem; the rest is still checked', async () => {
    const toml = join(root, 'moon', 'moon.toml');
    writeFileSync(toml, 'bogus = 1\n');
    try {
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(check(report, 'config')).toMatchObject({ status: 'fail', detail: `${toml}: unknown key bogus` });
      expect(check(report, 'agent:claude-code')!.status).toBe('ok');
      expect(check(report, 'engine')!.status).toBe('skip');
    } finally {
      rmSync(toml);
    }
  });
});
