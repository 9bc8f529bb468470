import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';

const SHOP = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
const LEDGER = '019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b';

let current: TestHome | null = null;
afterEach(async () => {
  await current?.cleanup();
  current = null;
});

function countBlocks(text: string, id: string): number {
  return text.split(`<!-- MOON_SESSION_BEGIN:${id} -->`).length - 1;
}

describe('L1 normalisation (moon distill --mode norm)', () => {
  test('writes a block into the daily file of the last activity\'s residential day, with summary and conversation', async () => {
    current = await makeIndexedHome();
    const { moon, home } = current;
    const watcher = await moon.upkeep.watcher();
    const result = watcher.distillNorm(join(home, 'archives', 'mlib', `${SHOP}.md`));
    // The session ran 2026-02-20 18:21–18:39 UTC: 05:21–05:39 on the 21st in Sydney, and the clock reads March.
    expect(result.day).toBe('2026-02-21');
    expect(result.record).toMatchObject({ session_id: SHOP, provider: 'l1-normaliser', summary_path: join(home, 'memory', '2026-02-21.md') });
    expect(result.record.archive_path).toBe(join(home, 'archives', 'raw', 'claude-code', `${SHOP}.jsonl`));
    const text = readFileSync(join(home, 'memory', '2026-02-21.md'), 'utf8');
    expect(text).toContain(`<!-- MOON_SESSION_BEGIN:${SHOP} -->`);
    expect(text).toContain(`<!-- MOON_SESSION_END:${SHOP} -->`);
    expect(text).toMatch(/- Source archive: `.*claude-code.*\.jsonl`/);
    expect(text).toMatch(/- Messages: 18 · noise filtered: 2/);
    expect(text).toMatch(/\*\*Goal:\*\* Let's get the shop deployed to Cloudflare Workers/);
    expect(text).toMatch(/\*\*Outcome:\*\* Deployed\. The shop Worker is live/);
    // The edits and the deploy, in the order they ran; the secret the user declined to let the agent set is not a blocker.
    const actions = text.slice(text.indexOf('**Key actions:**'), text.indexOf('**Outcome:**'));
    expect(actions.indexOf('env.d.ts')).toBeLessThan(actions.indexOf('wrangler deploy'));
    expect(text).toContain('**Blockers:** none');
    // The conversation, user and assistant interleaved in time order with local times.
    const conversation = text.slice(text.indexOf('### Conversation'));
    expect(conversation).toMatch(/^- 05:21:07 AEDT \*\*user\*\*: Let's get the shop deployed/m);
    expect(conversation.indexOf('**user**: Not [vars]')).toBeGreaterThan(conversation.indexOf('**assistant**: The build fails'));
    const audit = readFileSync(join(home, 'logs', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(audit.at(-1)).toMatchObject({ event: 'l1', outcome: 'written', session_id: SHOP, provider: 'l1-normaliser' });
  }, 30_000);

  test('a re-run after the session grows replaces its block, never duplicates it, and keeps notes around it', async () => {
    current = await makeIndexedHome();
    const { moon, home, sources } = current;
    const watcher = await moon.upkeep.watcher();
    const projection = join(home, 'archives', 'mlib', `${LEDGER}.md`);
    watcher.distillNorm(projection);
    const daily = join(home, 'memory', '2026-02-21.md');
    appendFileSync(daily, '\nMy own note about the invoice flake.\n');
    // The session grows: one more user turn appended to its transcript, then indexed.
    const transcript = join(sources, 'codex', '2026', '02', '21', readdirSync(join(sources, 'codex', '2026', '02', '21')).find((file) => file.includes(LEDGER))!);
    const lines = readFileSync(transcript, 'utf8').trim().split('\n');
    const lastUser = lines.filter((line) => line.includes('"type":"user_message"') || line.includes('"role":"user"')).at(-1)!;
    const grown = lastUser
      .replace(/"timestamp":"[^"]+"/, '"timestamp":"2026-02-21T09:30:00.000Z"')
      .replace(/Commit it as [^"\\]*(?:\\"[^"\\]*\\")?[^"\\]*/g, 'Also open a pull request for the zebra fix please');
    appendFileSync(transcript, `${grown}\n`);
    await moon.history.index({ roots: [transcript] });
    expect(() => watcher.distillNorm(projection)).not.toThrow();
    const text = readFileSync(daily, 'utf8');
    expect(countBlocks(text, LEDGER)).toBe(1);
    expect(text).toContain('zebra fix');
    expect(text).toContain('My own note about the invoice flake.');
  }, 30_000);

  test('manual L1 errors: no path, an unreadable path, a projection already written for its content, a held lock', async () => {
    current = await makeIndexedHome();
    const { moon, home } = current;
    const watcher = await moon.upkeep.watcher();
    expect(() => watcher.distillNorm(undefined)).toThrow(/needs --archive PATH/);
    expect(() => watcher.distillNorm(join(home, 'archives', 'mlib', 'nope.md'))).toThrow(/nope\.md: cannot read it/);
    const projection = join(home, 'archives', 'mlib', `${SHOP}.md`);
    watcher.distillNorm(projection);
    expect(() => watcher.distillNorm(projection)).toThrow(/no pending projection/);
    const other = join(home, 'archives', 'mlib', `${LEDGER}.md`);
    // Another live process holds the L1 lock: the manual run fails at once, naming it.
    writeFileSync(join(home, 'logs', 'moon-l1.lock'), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1 }));
    expect(() => watcher.distillNorm(other)).toThrow(new RegExp(`already running in another process \\(pid ${process.ppid}\\)`));
    expect(existsSync(join(home, 'memory', '2026-02-21.md')) && readFileSync(join(home, 'memory', '2026-02-21.md'), 'utf8')).not.toContain(LEDGER);
  }, 30_000);

  test('a long conversation is chunked: past max_chunks the middle is named as omitted', async () => {
    current = await makeIndexedHome({ toml: '[distill]\nchunk_bytes = 400\nmax_chunks = 2\n' });
    const { moon, home } = current;
    const result = (await moon.upkeep.watcher()).distillNorm(join(home, 'archives', 'mlib', `${SHOP}.md`));
    expect(result.omittedTurns).toBeGreaterThan(0);
    const text = readFileSync(join(home, 'memory', '2026-02-21.md'), 'utf8');
    expect(text).toMatch(new RegExp(`- … ${result.omittedTurns} turns omitted \\(\\d+ of \\d+ chunks past distill.max_chunks = 2`));
    // The first turn (the goal) and the last (the outcome) are kept.
    expect(text).toMatch(/\*\*user\*\*: Let's get the shop deployed/);
    expect(text).toMatch(/\*\*assistant\*\*: Deployed\./);
  }, 30_000);
});
