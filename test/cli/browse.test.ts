import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SessionListing } from '../../src/browse/sessions.js';
import type { ShowResult } from '../../src/browse/show.js';
import type { RecallResult } from '../../src/model.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let home: string;
let cleanup: () => void;
const ZONE = { MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' };
const moon = (...args: string[]) => spawnMoon(args, { MOON_HOME: home, ...ZONE });

const SHOP = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
const SHOP_LATER = 'a7d41c09-2e6f-4b3a-8c5d-9e0f1a2b3c4d';

beforeAll(async () => {
  const temp = makeTempDir('moon-browse-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  // A transcript whose fields carry terminal escapes (message text is cleaned when indexed, but names such as the
  // project, taken from the cwd, are kept as written): output must show them, never act on them.
  const odd = join(temp.path, 'odd');
  mkdirSync(odd);
  writeFileSync(
    join(odd, 'escape.jsonl'),
    claudeSession({
      sessionId: 'escape-session',
      cwd: '/home/dev/odd\u001b[31mproject\u0007',
      turns: [
        { role: 'user', at: '2026-01-02T03:04:05Z', id: 'e-1', text: 'please colour the zebrafish log \u001b[31mred\u001b[0m and ring \u0007 the bell' },
        { role: 'assistant', at: '2026-01-02T03:05:00Z', id: 'e-2', text: 'Done: the zebrafish log is coloured now.' },
      ],
    }),
  );
  const run = await spawnMoon(['index', join(REPO, 'examples'), odd], { MOON_HOME: home, ...ZONE });
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => cleanup());

describe('moon sessions', () => {
  test('one line per session, newest first, local times with the zone, project, messages and tools', async () => {
    const run = await moon('sessions');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('5 sessions');
    expect(lines[0]).toContain(SHOP_LATER);
    expect(lines[0]).toContain('2026-02-25 09:04–09:09 AEDT');
    expect(lines[0]).toMatch(/\| shop \| .* \| 10 messages \| tools: Bash×2/);
    // No title in these transcripts: the line shows the first thing the user asked instead.
    expect(lines[0]).toContain('| "Stripe says every webhook to https://shop.example.dev/api/s…" |');
    const ids = lines.slice(0, 5).map((line) => line.split(' | ')[0]);
    expect(ids.indexOf(SHOP_LATER)).toBeLessThan(ids.indexOf(SHOP));
  });

  test('filters by project, source, time and count; --json carries the same', async () => {
    const shop = JSON.parse((await moon('sessions', '--project', 'shop', '--json')).stdout) as SessionListing;
    expect(shop.sessions.map((session) => session.session_id)).toEqual([SHOP_LATER, SHOP]);
    expect(shop.timezone).toBe('Australia/Sydney');
    expect(shop.sessions[1]).toMatchObject({ source: 'claude-code', project: 'shop', start: '2026-02-21T05:21:07+11:00' });
    expect(shop.sessions[1]!.tools[0]).toEqual({ name: 'Bash', count: 6 });

    const codex = JSON.parse((await moon('sessions', '--source', 'codex', '--json')).stdout) as SessionListing;
    expect(codex.sessions.map((session) => session.source)).toEqual(['codex']);

    const window = JSON.parse((await moon('sessions', '--since', '2026-02-21', '--until', '2026-02-22', '--json')).stdout) as SessionListing;
    expect(window.sessions.map((session) => session.session_id).sort()).toEqual(['019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b', SHOP].sort());

    const one = await moon('sessions', '--limit', '1');
    expect(one.stdout.trim().split('\n').at(-1)).toBe('1 session');

    const none = await moon('sessions', '--project', 'no-such-project');
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('No sessions.');

    const bad = await moon('sessions', '--source', 'vim');
    expect(bad.code).toBe(2);
  });
});

describe('moon show', () => {
  test('without --around prints the projection; a unique prefix is enough', async () => {
    const run = await moon('show', SHOP.slice(0, 8));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(readFileSync(join(home, 'archives', 'mlib', `${SHOP}.md`), 'utf8').replace(/\n?$/, '\n'));
  });

  test('--around a recall message id shows the entries before and after it, tool results included', async () => {
    const recall = JSON.parse((await moon('recall', 'I already put both secrets in', '--limit', '1', '--json')).stdout) as RecallResult;
    const match = recall.matches[0]!;
    expect(match.metadata.session_id).toBe(SHOP);
    const id = match.metadata.message_ids[0]!;
    const run = await moon('show', SHOP, '--around', id, '--context', '2');
    expect(run.code, run.stderr).toBe(0);
    const focus = run.stdout.split('\n').find((line) => line.startsWith('>'));
    expect(focus).toContain(`[${id}]`);
    expect(focus).toMatch(/^> 2026-02-21 05:\d\d:\d\d AEDT {2}user/);
    expect(run.stdout).toContain('2 entries before, 2 after');
    expect(run.stdout).toContain('⎿ ');

    const json = JSON.parse((await moon('show', SHOP, '--around', id, '--context', '1', '--json')).stdout) as ShowResult;
    expect(json.found).toBe(true);
    if (!json.found) return;
    expect(json.entries).toHaveLength(3);
    expect(json.entries[1]).toMatchObject({ id, focus: true, role: 'user' });
    expect(json.around?.entry_id).toBe(id);
  });

  test('--around a clock time or an ISO time opens the entry nearest it', async () => {
    const clock = JSON.parse((await moon('show', SHOP, '--around', '05:39', '--context', '0', '--json')).stdout) as ShowResult;
    const iso = JSON.parse((await moon('show', SHOP, '--around', '2026-02-20T18:39:05Z', '--context', '0', '--json')).stdout) as ShowResult;
    expect(clock.found && iso.found).toBe(true);
    if (!clock.found || !iso.found) return;
    expect(clock.entries[0]!.time).toMatch(/^2026-02-21T05:39:\d\d\+11:00$/);
    expect(iso.entries[0]!.time).toBe('2026-02-21T05:39:05+11:00');
    expect(iso.entries[0]!.tool).toBe('Bash');
  });

  test('an unknown or ambiguous session exits 2; with --json the answer is a value', async () => {
    const unknown = await moon('show', 'no-such-session');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no-such-session');
    const json = await moon('show', 'no-such-session', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      found: false,
      session: 'no-such-session',
      reason: 'unknown',
      candidates: [],
      message: 'no session no-such-session in the index, nor one whose id starts with it',
    });
    const ambiguous = await moon('show', '', '--json');
    expect(ambiguous.code).toBe(2);
    const badAround = await moon('show', SHOP, '--around', 'not-a-message');
    expect(badAround.code).toBe(2);
    expect(badAround.stderr).toContain('not-a-message');
  });

  test('control characters in transcript fields are shown escaped', async () => {
    const run = await moon('show', 'escape-session', '--around', 'e-1', '--context', '0');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0007\u001b]/);
    expect(run.stdout).toContain('odd\\u001b[31mproject\\u0007');
    const list = await moon('sessions', '--source', 'claude-code');
    expect(list.stdout).not.toMatch(/[\u0007\u001b]/);
    expect(list.stdout).toContain('odd\\u001b[31mproject\\u0007');
  });
});

describe('moon recall (human output)', () => {
  test('times in the residential zone with its abbreviation, singular and plural right, escapes shown', async () => {
    const run = await moon('recall', 'zebrafish');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0007\u001b]/);
    expect(run.stdout).toContain('odd\\u001b[31mproject\\u0007 | escape-session');
    expect(run.stdout).toMatch(/escape-session \| 2 matches \| 2026-01-02 14:0\d AEDT \|/);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Found matches in 1 session');

    const one = await moon('recall', 'zebrafish', '--per-session', '1', '--require', 'bell');
    expect(one.stdout).toMatch(/\| 1 match \|/);

    const utc = await spawnMoon(['recall', 'zebrafish', '--tz', 'UTC'], { MOON_HOME: home, ...ZONE });
    expect(utc.stdout).toMatch(/2026-01-02 03:0\d UTC/);
  });
});
