import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, type CliRun, makeTempDir, runMoon } from '../helpers/cli.js';

/**
 * `@/` markers through the real CLI, on copies of real transcripts (a Claude Code session, a Codex session) with
 * markers planted in prompts, replies, a tool's output and a tool's input: `moon index`, `moon markers`,
 * `moon recall --marker`, appends, re-indexing, forgetting, and the `markers` config.
 */

const CLAUDE_FIXTURE = join(REPO, 'test/fixtures/claude-code/real-worktrees-session-with-subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
const CODEX_FIXTURE = join(REPO, 'test/fixtures/codex/real-redacted-short-dangling-call-019c8a70.jsonl');
const CLAUDE_SESSION = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';
const CODEX_SESSION = '019c8a70-dda7-7f33-98ea-f30553347322';
const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

type JsonRecord = Record<string, any>;

/** A transcript's lines as records, changed by `edit` (line index → record), written back as JSONL. */
function plant(source: string, target: string, edit: (index: number, record: JsonRecord) => void): void {
  const lines = readFileSync(source, 'utf8').split('\n').filter((line) => line !== '');
  const out = lines.map((line, index) => {
    const record = JSON.parse(line) as JsonRecord;
    edit(index, record);
    return JSON.stringify(record);
  });
  writeFileSync(target, `${out.join('\n')}\n`);
}

function plantClaude(target: string): void {
  plant(CLAUDE_FIXTURE, target, (index, record) => {
    const content = record.message?.content;
    if (index === 4) record.message.content = `${content}\n@/decision: keep the zeppelin scheduler single-threaded\nbecause its queue is not thread-safe`;
    if (index === 9) content[0].text += '\n@/bug: the zeppelin lock leaks on timeout';
    if (index === 14) content[0].input.command += ' # @/todo: written in a tool input, not a marker';
    if (index === 15) content[0].content += '\nNOTES.md:1: @/perf: git status is slow on big repositories';
    if (index === 116) record.message.content = `${content}\n@/security: rotate the token ${TOKEN} before the release`;
  });
}

const CODEX_PROMPT = 'Plan the zeppelin rollout for the mirror.\n@/todo: write the zeppelin migration guide';
const CODEX_REPLY = "I'll read the zeppelin config first.";

function plantCodex(target: string): void {
  plant(CODEX_FIXTURE, target, (index, record) => {
    // The prompt and the reply are each written twice (response_item, and its event_msg echo).
    if (index === 8) record.payload.content[0].text = CODEX_PROMPT;
    if (index === 9) record.payload.message = CODEX_PROMPT;
    if (index === 15) record.payload.message = CODEX_REPLY;
    if (index === 16) record.payload.content[0].text = CODEX_REPLY;
  });
}

interface MarkerJson {
  type: string;
  content: string;
  importance: number;
  session_id: string;
  entry_id: string;
  source_field: string;
  line: number;
  context: { before: string; after: string };
  timestamp: string | null;
}

interface MarkersJson {
  scope: { kind: string };
  counts: Record<string, number>;
  markers: MarkerJson[];
}

let temp: { path: string; cleanup: () => void };
let sources: string;
let env: Record<string, string>;

const moon = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> => runMoon(args, { ...env, ...extra });

async function listMarkers(args: string[] = [], extra: Record<string, string> = {}): Promise<MarkersJson> {
  const run = await moon(['markers', '--json', ...args], extra);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as MarkersJson;
}

const described = (result: MarkersJson): string[] => result.markers.map((marker) => `${marker.type}: ${marker.content}`);

async function recallSessions(args: string[]): Promise<{ sessions: string[]; messages: string[] }> {
  const run = await moon(['recall', ...args, '--json']);
  expect(run.code).toBe(0);
  const matches = (JSON.parse(run.stdout) as { matches: { metadata: { session_id: string; message_ids: string[] } }[] }).matches;
  return { sessions: matches.map((match) => match.metadata.session_id).sort(), messages: matches.flatMap((match) => match.metadata.message_ids) };
}

beforeAll(async () => {
  temp = makeTempDir('moon-markers-cli-');
  sources = join(temp.path, 'sources');
  mkdirSync(join(sources, 'claude'), { recursive: true });
  mkdirSync(join(sources, 'codex'), { recursive: true });
  plantClaude(join(sources, 'claude', `${CLAUDE_SESSION}.jsonl`));
  plantCodex(join(sources, 'codex', 'rollout-2026-02-23T12-19-38-019c8a70.jsonl'));
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0' };
  const indexed = await moon(['index', sources]);
  expect(indexed.code).toBe(0);
}, 120_000);

afterAll(() => temp.cleanup());

describe('moon markers', () => {
  test('lists the markers of prompts, replies and tool output, newest first, redacted; never a tool input', async () => {
    const result = await listMarkers();
    expect(described(result)).toEqual([
      'security: rotate the token [REDACTED:github-token] before the release',
      'perf: git status is slow on big repositories',
      'bug: the zeppelin lock leaks on timeout',
      'decision: keep the zeppelin scheduler single-threaded',
      'todo: write the zeppelin migration guide',
    ]);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(JSON.stringify(result)).not.toContain('written in a tool input');
    expect(result.counts).toEqual({ bug: 1, decision: 1, perf: 1, security: 1, todo: 1 });
    const decision = result.markers.find((marker) => marker.type === 'decision')!;
    expect(decision).toMatchObject({
      importance: 1,
      session_id: CLAUDE_SESSION,
      entry_id: '0ae44287-6fb8-4325-acd4-934696671e09',
      source_field: 'prompt',
      timestamp: '2026-04-18T13:18:42.368Z',
      context: { after: 'because its queue is not thread-safe' },
    });
    expect(decision.line).toBeGreaterThan(1);
    expect(decision.context.before.length).toBeGreaterThan(0);
    expect(result.markers.find((marker) => marker.type === 'perf')).toMatchObject({ source_field: 'response', importance: 0.5, context: { after: '' } });
    expect(result.markers.find((marker) => marker.type === 'bug')).toMatchObject({ source_field: 'response', importance: 0.8 });
    expect(result.markers.find((marker) => marker.type === 'todo')).toMatchObject({ source_field: 'prompt', session_id: CODEX_SESSION, line: 2 });
  });

  test('filters by type (repeatable or a comma list), session, time, words and limit', async () => {
    expect(described(await listMarkers(['--type', 'decision']))).toEqual(['decision: keep the zeppelin scheduler single-threaded']);
    expect(described(await listMarkers(['--type', 'bug,perf', '--type', 'todo']))).toEqual([
      'perf: git status is slow on big repositories',
      'bug: the zeppelin lock leaks on timeout',
      'todo: write the zeppelin migration guide',
    ]);
    const codex = await listMarkers(['--session', CODEX_SESSION.slice(0, 12)]);
    expect(described(codex)).toEqual(['todo: write the zeppelin migration guide']);
    expect(codex.scope).toEqual({ kind: 'session', session_id: CODEX_SESSION });
    expect(described(await listMarkers(['--since', '2026-04-01', '--until', '2026-04-18T13:20:00Z']))).toEqual([
      'perf: git status is slow on big repositories',
      'bug: the zeppelin lock leaks on timeout',
      'decision: keep the zeppelin scheduler single-threaded',
    ]);
    expect(described(await listMarkers(['zeppelin', 'LOCK']))).toEqual(['bug: the zeppelin lock leaks on timeout']);
    const limited = await listMarkers(['--limit', '1']);
    expect(limited.markers.length).toBe(1);
    expect(Object.values(limited.counts).reduce((sum, count) => sum + count, 0)).toBe(5);
  });

  test('prints them for people: time, type and text, where, and the counts', async () => {
    const run = await moon(['markers', '--type', 'decision,bug']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/2026-04-18 13:18 UTC {2}@\/decision: keep the zeppelin scheduler single-threaded\n {2}.* · session ef958aa1-0e93-49f0-bb71-150f63befcd1 · message 0ae44287-6fb8-4325-acd4-934696671e09 · prompt line \d+/);
    expect(run.stdout).toMatch(/\n\n2 markers \(bug 1, decision 1\)\n$/);
    expect((await moon(['markers', '--type', 'ref'])).stdout).toBe('No markers.\n');
  });

  test('an unknown type or a bad flag is a usage error naming the flag', async () => {
    const badType = await moon(['markers', '--type', 'decisoin']);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/--type: "decisoin" is not a marker type here \(decision, breaking/);
    const badSince = await moon(['markers', '--since', 'yesterdayish']);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toMatch(/--since: "yesterdayish" is not a date, a date-time or a time the queries understand/);
    const noSession = await moon(['markers', '--session', 'no-such-session']);
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toMatch(/--session: no session no-such-session/);
  });
});

describe('moon recall --marker', () => {
  test('keeps only messages carrying a marker of the type, in the SQL of the search', async () => {
    expect((await recallSessions(['zeppelin'])).sessions).toEqual([CODEX_SESSION, CLAUDE_SESSION].sort());
    const decisions = await recallSessions(['zeppelin', '--marker', 'decision']);
    expect(decisions.sessions).toEqual([CLAUDE_SESSION]);
    expect(decisions.messages).toEqual(['0ae44287-6fb8-4325-acd4-934696671e09']);
    const todos = await recallSessions(['zeppelin', '--marker', 'todo']);
    expect(todos.sessions).toEqual([CODEX_SESSION]);
    const todo = (await listMarkers(['--type', 'todo'])).markers[0]!;
    expect(todos.messages).toEqual([todo.entry_id]);
    expect((await recallSessions(['zeppelin', '--marker', 'decision,todo'])).sessions).toEqual([CODEX_SESSION, CLAUDE_SESSION].sort());
    // The tool output carrying the perf marker sits next to the reply naming the zeppelin (neighbour context).
    const marked = (await listMarkers(['--type', 'bug,perf'])).markers.map((marker) => marker.entry_id).sort();
    expect((await recallSessions(['zeppelin', '--marker', 'bug', '--marker', 'perf', '--group', 'message'])).messages.sort()).toEqual(marked);
    expect((await recallSessions(['zeppelin', '--marker', 'ref'])).sessions).toEqual([]);
  });

  test('an unknown type is a usage error naming --marker', async () => {
    const run = await moon(['recall', 'zeppelin', '--marker', 'decisoin']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--marker: "decisoin" is not a marker type here/);
    const malformed = await moon(['recall', 'zeppelin', '--marker', 'Decision!']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--marker: "Decision!" is not a marker type/);
  });

  test('the request schema reads the field for --batch (as MCP and HTTP do)', async () => {
    const lines = [{ query: 'zeppelin', marker: 'todo' }, { query: 'zeppelin', marker: ['decision'] }].map((line) => `${JSON.stringify(line)}\n`);
    const run = await runMoon(['recall', '--batch', '-'], env, lines.join(''));
    expect(run.code).toBe(0);
    const [first, second] = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { matches: { metadata: { session_id: string } }[] });
    expect(first!.matches.map((match) => match.metadata.session_id)).toEqual([CODEX_SESSION]);
    expect(second!.matches.map((match) => match.metadata.session_id)).toEqual([CLAUDE_SESSION]);
  });
});

describe('markers as files are indexed again', () => {
  test("an appended line's marker appears; unchanged and forced re-indexes duplicate nothing; forgetting removes them", async () => {
    const codexFile = join(sources, 'codex', 'rollout-2026-02-23T12-19-38-019c8a70.jsonl');
    const prompt = 'Also the endpoint.\n@/api: the zeppelin endpoint answers 202 now';
    appendFileSync(
      codexFile,
      `${JSON.stringify({ timestamp: '2026-02-23T12:30:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } })}\n` +
        `${JSON.stringify({ timestamp: '2026-02-23T12:30:00.001Z', type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [], local_images: [], text_elements: [] } })}\n`,
    );
    const appended = await moon(['index', sources, '--json']);
    expect(appended.code).toBe(0);
    expect((JSON.parse(appended.stdout) as { resumed: number }).resumed).toBe(1);
    const after = await listMarkers(['--session', CODEX_SESSION]);
    expect(described(after)).toEqual(['api: the zeppelin endpoint answers 202 now', 'todo: write the zeppelin migration guide']);
    expect(after.markers[0]).toMatchObject({ timestamp: '2026-02-23T12:30:00.000Z', source_field: 'prompt', line: 2, context: { before: 'Also the endpoint.', after: '' } });

    expect((await moon(['index', sources])).code).toBe(0);
    expect((await listMarkers()).counts).toEqual({ api: 1, bug: 1, decision: 1, perf: 1, security: 1, todo: 1 });
    expect((await moon(['index', sources, '--force'])).code).toBe(0);
    expect((await listMarkers()).counts).toEqual({ api: 1, bug: 1, decision: 1, perf: 1, security: 1, todo: 1 });

    expect((await moon(['forget', CODEX_SESSION])).code).toBe(0);
    expect((await listMarkers()).counts).toEqual({ bug: 1, decision: 1, perf: 1, security: 1 });
    expect((await recallSessions(['zeppelin', '--marker', 'todo'])).sessions).toEqual([]);
  }, 120_000);
});

describe('the markers config', () => {
  test('a custom type is found from the next command on; changing the patterns re-derives what is stored', async () => {
    const home = join(temp.path, 'home');
    writeFileSync(join(home, 'moon.toml'), `[[markers.patterns]]\ntype = "risk"\npattern = '(?:^|\\n)Worktrees are (\\S+)'\npriority = 9\n`);
    const risks = await listMarkers(['--type', 'risk']);
    expect(described(risks)).toEqual(['risk: clean']);
    expect(risks.markers[0]).toMatchObject({ importance: 0.9, source_field: 'response' });
    expect((await listMarkers()).counts).toMatchObject({ decision: 1, risk: 1 });
    writeFileSync(join(home, 'moon.toml'), '[markers]\ndefaults = false\ncontext_lines = 0\n');
    expect(await listMarkers()).toMatchObject({ counts: {}, markers: [] });
    const unknown = await moon(['recall', 'zeppelin', '--marker', 'decision']);
    expect(unknown.code).toBe(2);
    writeFileSync(join(home, 'moon.toml'), '');
    expect((await listMarkers()).counts).toEqual({ bug: 1, decision: 1, perf: 1, security: 1 });
  }, 60_000);

  test('a bad pattern fails every command with an error naming the key', async () => {
    const home = join(temp.path, 'bad-home');
    mkdirSync(home);
    writeFileSync(join(home, 'moon.toml'), `[[markers.patterns]]\ntype = "risk"\npattern = '@/risk:(.+'\n`);
    const run = await runMoon(['markers'], { MOON_HOME: home });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/moon\.toml: markers\.patterns\.0\.pattern: is not a valid regular expression/);
  });
});
