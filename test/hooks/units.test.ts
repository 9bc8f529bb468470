import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Piece, fitToBudget } from '../../src/hooks/budget.js';
import { digestProjection } from '../../src/hooks/digest.js';
import { findBySessionId, locateTranscript } from '../../src/hooks/locate.js';
import { selectMemoryLines } from '../../src/memory/memory-lines.js';
import { parseHookPayload } from '../../src/hooks/payload.js';
import { candidateFilters, chooseRoot, isWithin, normalizePath } from '../../src/search/project-scope.js';
import { loadTokenCounter } from '../../src/text/tokens.js';
import { KEEP_DAYS, hookStatePath, readHookUsage, recordHookRun } from '../../src/hooks/usage-state.js';
import { isSearchable } from '../../src/hooks/user-prompt.js';
import { findWorktreeRepoPath } from '../../src/sources/path-names.js';
import type { SessionSummary } from '../../src/store/types.js';
import { makeTempDir } from '../helpers/cli.js';
import { countHookTokens } from './hook-helpers.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  const temp = makeTempDir('moon-hook-units-');
  dir = temp.path;
  cleanup = temp.cleanup;
});
afterAll(() => cleanup());

describe('payloads', () => {
  test('the fields moon reads; the rest ignored; null transcript_path; blank strings are absent', () => {
    const payload = parseHookPayload(
      JSON.stringify({ session_id: 'abc', transcript_path: null, cwd: '/w', hook_event_name: 'PreCompact', trigger: 'auto', turn_id: 't', model: 'm', extra: { deep: [1] } }),
      'pre-compact',
    );
    expect(payload).toEqual({ sessionId: 'abc', transcriptPath: null, cwd: '/w', hookEventName: 'PreCompact', source: null, trigger: 'auto', reason: null, prompt: null });
    expect(parseHookPayload('{"cwd":"  ","prompt":""}', 'user-prompt-submit')).toMatchObject({ cwd: null, prompt: '' });
    // Without hook_event_name the command line says which event it is.
    expect(parseHookPayload('{"cwd":"/w"}', 'session-start').cwd).toBe('/w');
  });

  test('errors name what is wrong', () => {
    expect(() => parseHookPayload('{"transcript_path": 7}', 'stop')).toThrow('"transcript_path" must be a string or null, got number');
    expect(() => parseHookPayload('{"hook_event_name":"SessionEnd"}', 'stop')).toThrow('the payload is for "SessionEnd", but this is `moon hook stop` (Stop)');
    expect(() => parseHookPayload('{"hook_event_name":"session_start"}', 'session-start')).not.toThrow();
    expect(() => parseHookPayload('x'.repeat(8 * 1024 * 1024 + 1), 'stop')).toThrow('over 8 MB');
  });
});

describe('project scope', () => {
  const session = (cwd: string | null): SessionSummary => ({ cwd }) as SessionSummary;

  test('the deepest session cwd at or above the folder is the root; never the home folder or / for a folder below', () => {
    expect(chooseRoot([session('/home/me/shop'), session('/home/me'), session('/')], '/home/me/shop/src', '/home/me')).toBe('/home/me/shop');
    expect(chooseRoot([session('/home/me'), session('/')], '/home/me/new-thing', '/home/me')).toBe('/home/me/new-thing');
    expect(chooseRoot([session('/home/me')], '/home/me', '/home/me')).toBe('/home/me');
    expect(chooseRoot([session('/home/me/shop-old'), session(null)], '/home/me/shop', '/home/me')).toBe('/home/me/shop');
    expect(chooseRoot([session('C:\\work\\shop')], 'C:/work/shop/src', 'C:/Users/me')).toBe('C:/work/shop');
  });

  test('paths, filters and worktrees', () => {
    expect(normalizePath('C:\\work\\shop\\')).toBe('C:/work/shop');
    expect(normalizePath('/')).toBe('/');
    expect(isWithin('/a/shop/src', '/a/shop')).toBe(true);
    expect(isWithin('/a/shop-old', '/a/shop')).toBe(false);
    expect(isWithin('/a', '/')).toBe(true);
    expect(candidateFilters('/home/me/shop/src')).toEqual(['/home/me/shop/src', 'src', 'shop', 'me', 'home']);
    expect(findWorktreeRepoPath('/home/me/shop/.claude/worktrees/agent-1/src')).toBe('/home/me/shop');
    expect(findWorktreeRepoPath('/home/me/shop/.worktrees/fix')).toBe('/home/me/shop');
    expect(findWorktreeRepoPath('/home/me/shop/src')).toBeNull();
  });
});

describe('what a session-start says', () => {
  test('MEMORY.md lines naming the project as a word, or its folder', () => {
    const text = '# MEMORY\n\n## Lessons Learned\n\n- shop: cents\n- workshop\n- (none yet)\n* see /srv/shop for more\n1. The SHOP deploys on Fridays\n- shop-api is another project\n- shop: cents\n';
    expect(selectMemoryLines(text, { name: 'shop', root: '/srv/shop' })).toEqual(['shop: cents', 'see /srv/shop for more', 'The SHOP deploys on Fridays']);
    expect(selectMemoryLines('- ab testing\n- /x/ab/y\n', { name: 'ab', root: '/x/ab' })).toEqual(['/x/ab/y']);
  });

  test('a projection read back: last response, decisions, edits folded into changed files', () => {
    const digest = digestProjection(
      [
        '## Conversations',
        '',
        '### User Queries',
        '- [01:00:00Z] "fix it"',
        '',
        '### Assistant Responses',
        '- [01:01:00Z] Looking.',
        '- [01:09:00Z] Fixed: the cart rounds half-even now.',
        '',
        '## Tool Activity',
        '',
        '(none)',
        '',
        '## Decisions & Outcomes',
        '- Edited /w/shop/src/a.ts',
        '- [01:05:00Z] We decided to round half-even.',
        '- Wrote /w/shop/b.md',
        '- Edited /w/shop/src/a.ts',
        '- `npm test` → 12 passed',
        '',
        '## Keywords & Topics',
      ].join('\n'),
    );
    expect(digest).toEqual({
      outcome: 'Fixed: the cart rounds half-even now.',
      // The command and its output is not a decision: left out.
      decisions: ['We decided to round half-even.'],
      changedFiles: ['/w/shop/src/a.ts', '/w/shop/b.md'],
    });
    expect(digestProjection('# nothing here\n')).toEqual({ outcome: null, decisions: [], changedFiles: [] });
  });
});

describe('the budget', () => {
  test('pieces by rank while they fit, rendered in order, the whole counted; children only with their parent', async () => {
    const counter = await loadTokenCounter();
    const pieces: Piece[] = [
      { rank: 0, order: 0, text: 'Header line for the context.' },
      { rank: 3, order: 10, text: 'A low-priority heading that is rather long '.repeat(6) },
      { rank: 1, order: 20, text: 'Important heading.' },
      { rank: 2, order: 21, parent: 20, text: 'Its detail line.' },
      { rank: 2, order: 11, parent: 10, text: 'Detail of the long heading.' },
    ];
    const render = (chosen: Piece[]): string => `<frame>\n${chosen.map((piece) => piece.text).join('\n')}\n</frame>`;
    const fitted = await fitToBudget(pieces, render, 40, counter);
    expect(fitted?.pieces.map((piece) => piece.order)).toEqual([0, 20, 21]);
    expect(fitted!.tokens).toBe(countHookTokens(fitted!.text));
    expect(fitted!.tokens).toBeLessThanOrEqual(40);
    expect((await fitToBudget(pieces, render, 500, counter))?.pieces).toHaveLength(5);
    // The required piece does not fit: nothing.
    expect(await fitToBudget(pieces, render, 8, counter)).toBeNull();
    expect(await fitToBudget(pieces, render, 0, counter)).toBeNull();
  });

  test('the counter counts special-token text as text', async () => {
    const counter = await loadTokenCounter();
    const [count] = await counter.count(['<|endoftext|> and <|im_start|>']);
    expect(count).toBe(countHookTokens('<|endoftext|> and <|im_start|>'));
    expect(count).toBeGreaterThan(2);
  });
});

describe('finding a transcript', () => {
  test('Codex rollouts by session id, newest day first; Claude Code transcripts by name; a given path must exist', () => {
    const root = join(dir, 'sessions');
    const id = '019c1111-2222-7333-8444-555566667777';
    for (const day of ['2026/01/30', '2026/02/01', '2025/12/31']) mkdirSync(join(root, day), { recursive: true });
    writeFileSync(join(root, '2026/02/01', 'rollout-2026-02-01T10-00-00-019c0000-0000-7000-8000-000000000000.jsonl'), '');
    writeFileSync(join(root, '2026/01/30', `rollout-2026-01-30T10-00-00-${id}.jsonl`), '');
    expect(findBySessionId(root, id)).toBe(join(root, '2026/01/30', `rollout-2026-01-30T10-00-00-${id}.jsonl`));
    mkdirSync(join(dir, 'projects', '-w-shop'), { recursive: true });
    writeFileSync(join(dir, 'projects', '-w-shop', 'abc-123.jsonl'), '');
    expect(locateTranscript(null, 'abc-123', [join(dir, 'nowhere'), root, join(dir, 'projects')])).toBe(join(dir, 'projects', '-w-shop', 'abc-123.jsonl'));
    expect(() => locateTranscript(null, '../etc/passwd', [root])).toThrow('is not a session id');
    expect(() => locateTranscript(join(dir, 'gone.jsonl'), 'abc-123', [root])).toThrow('does not exist');
    expect(locateTranscript(join(dir, 'projects', '-w-shop', 'abc-123.jsonl'), null, [])).toBe(join(dir, 'projects', '-w-shop', 'abc-123.jsonl'));
  });
});

describe('hooks.json', () => {
  test('runs, injections, tokens and failures per day and hook; old days dropped; the last failure kept', async () => {
    const home = join(dir, 'home');
    const day = (n: number): string => `2026-01-${String(n).padStart(2, '0')}`;
    for (let n = 1; n <= KEEP_DAYS + 1; n += 1) expect(await recordHookRun(home, { event: 'session-start', day: day(n), nowMs: 0, tokens: n })).toBe(true);
    await recordHookRun(home, { event: 'session-start', day: day(KEEP_DAYS + 1), nowMs: 0 });
    await recordHookRun(home, { event: 'stop', day: day(KEEP_DAYS + 1), nowMs: 1_000_000, failure: 'no index' });
    await recordHookRun(home, { event: 'bogus', day: day(KEEP_DAYS + 1), nowMs: 2_000_000, failure: 'unknown hook event' });
    const usage = readHookUsage(home);
    expect(usage.file).toBe(hookStatePath(home));
    expect(new Set(usage.days.map((line) => line.day)).size).toBe(KEEP_DAYS);
    expect(usage.days.slice(0, 2)).toEqual([
      { day: day(KEEP_DAYS + 1), event: 'session-start', runs: 2, injections: 1, tokens: KEEP_DAYS + 1, failures: 0 },
      { day: day(KEEP_DAYS + 1), event: 'stop', runs: 1, injections: 0, tokens: 0, failures: 1 },
    ]);
    expect(usage.days.some((line) => line.day === day(1))).toBe(false);
    expect(usage.lastFailure).toEqual({ event: 'bogus', day: day(KEEP_DAYS + 1), at_epoch_secs: 2000, message: 'unknown hook event' });
  });

  test('a held lock makes a run go uncounted rather than wait; a stale one is taken over; a damaged file starts again', async () => {
    const home = join(dir, 'home-locked');
    const file = hookStatePath(home);
    await recordHookRun(home, { event: 'stop', day: '2026-02-01', nowMs: 0 });
    writeFileSync(`${file}.lock`, '');
    expect(await recordHookRun(home, { event: 'stop', day: '2026-02-01', nowMs: 0 })).toBe(false);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(await recordHookRun(home, { event: 'stop', day: '2026-02-01', nowMs: 0 })).toBe(true);
    expect(readHookUsage(home).days[0]?.runs).toBe(2);
    writeFileSync(file, '{ not json');
    expect(readHookUsage(home).days).toEqual([]);
    expect(await recordHookRun(home, { event: 'stop', day: '2026-02-02', nowMs: 0 })).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
  });
});

test('which prompts are searched', () => {
  expect(isSearchable('how do we deploy the shop?')).toBe(true);
  expect(isSearchable('ok')).toBe(false);
  expect(isSearchable('/compact now please')).toBe(false);
  expect(isSearchable('la vie')).toBe(false);
  expect(isSearchable('réparer le déploiement')).toBe(true);
});

describe('the token worker (built)', () => {
  test('counts what the in-process counter counts, and never keeps a finished process alive', async () => {
    const { spawnSync } = await import('node:child_process');
    const { REPO } = await import('../helpers/cli.js');
    const texts = ['hello world', '<|endoftext|> and <|im_start|>', 'Decision: `npm test` → ✓ 21 passed'];
    const script = `
      const m = await import(${JSON.stringify(join(REPO, 'dist', 'text', 'tokens.js'))});
      const counter = m.createWorkerCounter();
      console.log(JSON.stringify(await counter.count(${JSON.stringify(texts)})));
      // Not closed, not awaited: the process must still exit on its own.
      m.preloadTokenCounter();
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(texts.map(countHookTokens));
  });
});
