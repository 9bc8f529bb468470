import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';
import { claudePayload } from '../hooks/hook-helpers.js';
import { read, snapshotTree } from './helpers.js';

/**
 * `moon install` with MOON_HOME set: the agent runs the written commands with an environment of its own (no
 * MOON_HOME), and they still use that home; `moon doctor` from another home says the wiring is not its own.
 */
let root: string;
let cleanup: () => void;
let home: string;
let homeA: string;
let homeB: string;
beforeAll(() => {
  ({ path: root, cleanup } = makeTempDir('moon-install-home-cli-'));
  home = join(root, 'home');
  homeA = join(root, 'moon-a');
  homeB = join(root, 'moon-b');
});
afterAll(() => cleanup());

const SESSION = '3c3c3c3c-1111-4222-8333-444455556666';

interface Check {
  id: string;
  status: string;
  detail: string;
  fix?: string;
}

async function doctorAgent(env: Record<string, string>): Promise<{ code: number; check: Check }> {
  const run = await spawnMoon(['doctor', '--json'], { HOME: home, MOON_SOURCES: join(root, 'transcripts'), ...env });
  const report = JSON.parse(run.stdout) as { checks: Check[] };
  return { code: run.code, check: report.checks.find((check) => check.id === 'agent:claude-code')! };
}

/** Run a hook command line as Claude Code does: through the shell, the payload on stdin, the agent's own environment. */
function runAsAgent(command: string, stdin: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    child.stdin.end(stdin);
  });
}

describe('installed wiring carries its home (built CLI)', () => {
  test.skipIf(process.platform === 'win32')('install with MOON_HOME=A: the hook and the MCP server, run without MOON_HOME, use A', async () => {
    const install = await spawnMoon(['install', 'claude-code'], { HOME: home, MOON_HOME: homeA });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).toContain(`use the moon home ${homeA}`);

    const settings = JSON.parse(read(join(home, '.claude', 'settings.json'))!) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const stop = settings.hooks.Stop![0]!.hooks[0]!.command;
    expect(stop).toContain(`--home "${homeA}" hook stop`);

    const folder = join(root, 'transcripts', '-home-dev-kiln');
    mkdirSync(folder, { recursive: true });
    const transcript = join(folder, `${SESSION}.jsonl`);
    writeFileSync(
      transcript,
      claudeSession({
        sessionId: SESSION,
        cwd: '/home/dev/kiln',
        turns: [
          { role: 'user', at: '2026-02-22T01:00:00Z', id: 'k1', text: 'Why does the kiln controller stall at cone six?' },
          { role: 'assistant', at: '2026-02-22T01:02:00Z', id: 'k2', text: 'The thermocouple drifts: replace the type K thermocouple.' },
        ],
      }),
    );
    const agentEnv = { HOME: home, PATH: process.env.PATH ?? '', MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
    const hook = await runAsAgent(stop, claudePayload.stop({ session_id: SESSION, transcript_path: transcript, cwd: '/home/dev/kiln' }), agentEnv);
    expect(hook, hook.stderr).toEqual({ code: 0, stderr: '' });
    // The Stop hook hands the capture to a detached process, which indexes into A and then counts the run there.
    const deadline = Date.now() + 30_000;
    while (!existsSync(join(homeA, 'state', 'hooks.json')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(join(homeA, 'moon.db'))).toBe(true);
    expect(existsSync(join(home, '.moon'))).toBe(false);

    const server = (JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as { mcpServers: { moon: { command: string; args: string[] } } }).mcpServers.moon;
    expect(server.args.slice(-3)).toEqual(['--home', homeA, 'mcp']);
    const client = new Client({ name: 'moon-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, cwd: root, env: agentEnv, stderr: 'pipe' }));
    try {
      const result = await client.callTool({ name: 'recall', arguments: { query: 'thermocouple kiln', all_projects: true } });
      const matches = (result.structuredContent as { matches: { metadata: { session_id: string } }[] }).matches;
      expect(matches.map((match) => match.metadata.session_id)).toContain(SESSION);
    } finally {
      await client.close();
    }
    expect(existsSync(join(home, '.moon'))).toBe(false);
  });

  test('doctor from another home reports the mismatch with the install to run; from A it is fine', async () => {
    if (!existsSync(join(home, '.claude.json'))) {
      const install = await spawnMoon(['install', 'claude-code'], { HOME: home, MOON_HOME: homeA });
      expect(install.code, install.stderr).toBe(0);
    }
    const fromB = await doctorAgent({ MOON_HOME: homeB });
    expect(fromB.code).toBe(1);
    expect(fromB.check.status).toBe('fail');
    expect(fromB.check.detail).toContain(`use the moon home ${homeA}, not this one (${homeB})`);
    expect(fromB.check.fix).toBe(`run \`moon install claude-code --home ${homeB}\` to wire it to this home (or \`moon doctor --home ${homeA}\` checks that home)`);

    // The default home (no MOON_HOME) is another home too.
    const fromDefault = await doctorAgent({});
    expect(fromDefault.check).toMatchObject({ status: 'fail', fix: `run \`moon install claude-code\` to wire it to this home (or \`moon doctor --home ${homeA}\` checks that home)` });

    const fromA = await doctorAgent({ MOON_HOME: homeA });
    expect(fromA.check).toMatchObject({ status: 'ok' });
    // --home after the subcommand, as the fix words it, is the same home.
    const run = await spawnMoon(['doctor', '--json', '--home', homeA], { HOME: home, MOON_SOURCES: join(root, 'transcripts') });
    expect((JSON.parse(run.stdout) as { checks: Check[] }).checks.find((check) => check.id === 'agent:claude-code')!.status).toBe('ok');
  });
});

describe('moon install --scope project (built CLI)', () => {
  /** Every string in the parsed file that is rooted at / or a drive letter, or holds one after a quote or space. */
  const absolutePaths = (file: string): string[] => {
    const text = read(file)!;
    const tree = file.endsWith('.toml') ? parseToml(text) : (JSON.parse(text) as unknown);
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(strings) : value !== null && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
    return strings(tree).filter((value) => /(^|["\s])([/\\]|[A-Za-z]:[/\\])/.test(value));
  };

  test('writes no absolute path, says what teammates need; a home other than the default is refused with exit 2', async () => {
    const project = join(root, 'project');
    mkdirSync(project, { recursive: true });
    const projectHome = join(root, 'home-p');
    for (const agent of ['claude-code', 'codex']) {
      const run = await spawnMoon(['install', agent, '--scope', 'project', '--json'], { HOME: projectHome }, { cwd: project });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/each teammate needs `moon` on PATH/);
      const files = (JSON.parse(run.stdout) as { files: { file: string }[] }).files.map((file) => file.file);
      expect(files.length).toBe(2);
      for (const file of files) expect(absolutePaths(file), file).toEqual([]);
    }
    expect(read(join(project, '.mcp.json'))).toContain('"command": "moon"');

    const before = snapshotTree(root);
    const refused = await spawnMoon(['install', 'claude-code', '--scope', 'project'], { HOME: projectHome, MOON_HOME: homeA }, { cwd: project });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`cannot name this machine's moon home ${homeA}`);
    expect(refused.stderr).toContain(`wire this home at user scope (\`moon install claude-code --home ${homeA}\`)`);
    const flag = await spawnMoon(['install', 'codex', '--scope', 'project', '--home', homeB], { HOME: projectHome }, { cwd: project });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(`moon home ${homeB}`);
    expect(snapshotTree(root)).toEqual(before);
  });
});
