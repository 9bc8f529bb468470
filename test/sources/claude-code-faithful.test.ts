import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { IngestContext } from '../../src/ingest/context.js';
import { readTranscript } from '../../src/ingest/read-transcript.js';
import { classifyNoise, normalizeChunk } from '../../src/normalize/index.js';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import type { RawRecord } from '../../src/sources/source.js';
import { countRoles, entryByKey, fixturePath, loadRecords, parseFixture, parseInChunks } from './parse-helpers.js';

const WORKTREES = 'claude-code/real-worktrees-session-with-subagents';
const MAIN_SESSION = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';
const SUBAGENT = `${WORKTREES}/${MAIN_SESSION}/subagents/agent-a52886dc180afb356`;

function listFixtures(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listFixtures(path);
    return entry.name.endsWith('.jsonl') ? [path] : [];
  });
}

/** Every string a fixture's records hold, decoded: text that is in the transcript itself, not made by us. */
function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, out);
}

/** Lines outside ``` fences: JSON inside a fenced block is code someone wrote, not an envelope. */
function unfencedLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** A JSON object or list at the start of a line, or as the value of a `key: ` line. */
const JSON_LINE = /^\s*(?:[\w.-]{1,40}: )?(?:\{"|\[\{"|\["|\{\\")/;
const ESCAPES = ['\\n', '\\"'];

describe('claude code: no JSON envelope or escape noise reaches an entry', () => {
  const root = fixturePath('claude-code');
  test.each(listFixtures(root).map((path) => [relative(root, path), path]))('%s', (_name, path) => {
    const records = loadRecords(relative(fixturePath(''), path));
    const raw: string[] = [];
    for (const record of records) collectStrings(record.value, raw);
    const source = raw.join('\u0000');
    const chunk = claudeCodeSource.parse(records, { path, carry: null });
    const { chunk: normalized } = normalizeChunk(chunk, { redact: (text) => text });
    const problems: string[] = [];
    for (const entry of normalized.entries) {
      for (const [field, value] of [['text', entry.text], ['result', entry.result]] as const) {
        if (value === null) continue;
        const trimmed = value.trim();
        if (trimmed.startsWith('{"') || trimmed.startsWith('[{"')) problems.push(`${entry.key} ${field}: JSON envelope`);
        for (const line of unfencedLines(value)) {
          if (JSON_LINE.test(line)) problems.push(`${entry.key} ${field}: JSON line ${line.slice(0, 80)}`);
          // A literal escape may only be the transcript's own text (source code read from a file), never ours.
          const written = line.replace(/^[+-] /, '').trim(); // a diff line is the code as written
          if (ESCAPES.some((escape) => line.includes(escape)) && !source.includes(written)) {
            problems.push(`${entry.key} ${field}: escape in ${line.slice(0, 80)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('claude code: structured tool results', () => {
  const main = parseFixture(claudeCodeSource, `${WORKTREES}/${MAIN_SESSION}.jsonl`);

  test('an Agent result carries its status and total duration', () => {
    expect(entryByKey(main.entries, 'tool:toolu_01GmrK6tgdD9D5xD6W5X9UUy')).toMatchObject({
      toolName: 'Agent',
      status: 'completed',
      durationMs: 802_753,
      exitCode: null,
    });
    expect(entryByKey(main.entries, 'tool:toolu_01GmrK6tgdD9D5xD6W5X9UUy').text).toMatch(
      /^description: Research Claude Code plan mode\nsubagent_type: general-purpose\n/,
    );
  });

  test('a SendMessage result is its message, not the JSON around it', () => {
    expect(entryByKey(main.entries, 'tool:toolu_01CEp9CTJxZaRbZ1PWtaFSJ5').result).toBe("Message sent to alice's inbox");
  });

  test('TaskCreate and TaskUpdate read as their fields and confirmations', () => {
    expect(entryByKey(main.entries, 'tool:toolu_01T3mZDCCf4D2xSHYdn6n8Py')).toMatchObject({
      text: 'taskId: 1\nstatus: in_progress\nowner: alice',
      result: 'Updated task #1 owner, status',
    });
  });

  test('web searches keep their links as lines and their duration', () => {
    const chunk = parseFixture(claudeCodeSource, 'claude-code/real-scrubbed-api-error-thinking.jsonl');
    const search = entryByKey(chunk.entries, 'tool:toolu_01FBnE3zLGsTuQeLinFpz4mt');
    expect(search.durationMs).toBe(17_300);
    expect(search.result).toContain('Links:\n- title: GitHub - ckreiling/mcp-server-docker: MCP server for Docker\n  url: https://github.com/ckreiling/mcp-server-docker');
    expect(entryByKey(chunk.entries, 'tool:toolu_01R2LfPZUe7ToL4Wa6AaZyau')).toMatchObject({ toolName: 'Glob', durationMs: 126 });
  });

  const call = (id: string, name: string, input: object): RawRecord => ({
    line: 1,
    start: 0,
    end: 0,
    value: {
      type: 'assistant',
      sessionId: 'res-1',
      uuid: `a-${id}`,
      message: { id: `m-${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    },
  });
  const answer = (line: number, id: string, content: unknown, toolUseResult: unknown, isError = false): RawRecord => ({
    line,
    start: 0,
    end: 0,
    value: {
      type: 'user',
      sessionId: 'res-1',
      uuid: `r-${id}`,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
      toolUseResult,
    },
  });

  test('interrupted, failed and empty shell results state their outcome', () => {
    const records = [
      call('t1', 'Bash', { command: 'npm run dev' }),
      answer(2, 't1', 'Starting…', { stdout: 'Starting…', stderr: '', interrupted: true, isImage: false }),
      call('t2', 'Bash', { command: 'npm test' }),
      answer(4, 't2', 'Exit code 1\nFAIL src/a.test.ts', 'Error: Exit code 1\nFAIL src/a.test.ts', true),
      call('t3', 'Bash', { command: 'grep -r TODO src' }),
      answer(6, 't3', '', { stdout: '', stderr: '', interrupted: false, returnCodeInterpretation: 'No matches found' }),
      call('t4', 'SendMessage', { to: 'bob', message: 'hi' }),
      answer(8, 't4', [{ type: 'text', text: '{"success":false,"message":"No teammate named bob"}' }], {
        success: false,
        message: 'No teammate named bob',
      }),
    ];
    const chunk = claudeCodeSource.parse(records, { path: '/x/res-1.jsonl', carry: null });
    expect(entryByKey(chunk.entries, 'tool:t1')).toMatchObject({ result: 'Starting…', status: 'interrupted' });
    expect(entryByKey(chunk.entries, 'tool:t2')).toMatchObject({
      result: '[error] Exit code 1\nFAIL src/a.test.ts',
      status: 'error',
      exitCode: 1,
    });
    expect(entryByKey(chunk.entries, 'tool:t3')).toMatchObject({ result: 'No matches found', status: null });
    expect(entryByKey(chunk.entries, 'tool:t4')).toMatchObject({ result: 'No teammate named bob', status: 'error' });
  });
});

describe('claude code: summary and custom-title records are titles', () => {
  test('old files open with summaries: the one whose leaf is in the file titles it; none is a compaction', () => {
    const chunk = parseFixture(claudeCodeSource, 'claude-code/synthetic-summary-titles.jsonl');
    expect(chunk.session.title).toBe('Cart quantity merge fixed and tested');
    expect(chunk.anchors).toEqual([]);
    expect(countRoles(chunk.entries)).toEqual({ user: 1, assistant: 2, tool: 2 });
  });

  test('the title survives chunked parsing', () => {
    const records = loadRecords('claude-code/synthetic-summary-titles.jsonl');
    for (let cut = 1; cut < records.length; cut += 1) {
      const merged = parseInChunks(claudeCodeSource, records, '/x/old-titles-1.jsonl', [cut]);
      expect(merged.session.title, `cut ${cut}`).toBe('Cart quantity merge fixed and tested');
    }
  });

  test('without a leaf in the file the latest summary wins; a custom title beats any summary', () => {
    const line = (n: number, value: object): RawRecord => ({ line: n, start: 0, end: 0, value });
    const summaries = [
      line(1, { type: 'summary', summary: 'First', leafUuid: 'elsewhere-1' }),
      line(2, { type: 'summary', summary: 'Second', leafUuid: 'elsewhere-2' }),
      line(3, { type: 'user', sessionId: 'ct-1', uuid: 'u1', message: { role: 'user', content: 'rename this session please' } }),
    ];
    expect(claudeCodeSource.parse(summaries, { path: '/x/ct-1.jsonl', carry: null }).session.title).toBe('Second');
    const renamed = [...summaries, line(4, { type: 'custom-title', customTitle: 'Cart work', sessionId: 'ct-1' })];
    expect(claudeCodeSource.parse(renamed, { path: '/x/ct-1.jsonl', carry: null }).session.title).toBe('Cart work');
    const later = [...renamed, line(5, { type: 'summary', summary: 'Third', leafUuid: 'u1' })];
    expect(claudeCodeSource.parse(later, { path: '/x/ct-1.jsonl', carry: null }).session.title).toBe('Cart work');
  });
});

describe('claude code: away_summary recaps', () => {
  const chunk = parseFixture(claudeCodeSource, `${WORKTREES}/${MAIN_SESSION}.jsonl`);

  test('become system entries of kind recap, without the settings footer', () => {
    const recaps = chunk.entries.filter((entry) => entry.kind === 'recap');
    expect(recaps.map((entry) => [entry.role, entry.key])).toEqual([
      ['system', 'recap:e8b0fd84-dfca-4e0c-85f8-8a4b212caf95'],
      ['system', 'recap:953b6489-0a54-420d-8a27-5a4900679298'],
    ]);
    expect(recaps[1]!.text).toBe(
      'Three teammates (alice/bob/carol) researched plan mode, teammates, and Beads in their own worktrees, then added cross-comparison sections; both rounds are merged into master. No next action unless you want to inspect the docs or push.',
    );
  });

  test('survive the noise filters', () => {
    const { chunk: normalized } = normalizeChunk(chunk, { redact: (text) => text });
    expect(normalized.entries.filter((entry) => entry.kind === 'recap')).toHaveLength(2);
    for (const recap of chunk.entries.filter((entry) => entry.kind === 'recap')) expect(classifyNoise(recap)).toBeNull();
  });
});

describe('claude code: subagents belong to their parent project', () => {
  test('the meta sidecar names the agent type and task', () => {
    const records = loadRecords(`${SUBAGENT}.jsonl`);
    const sidecar = JSON.parse(readFileSync(fixturePath(`${SUBAGENT}.meta.json`), 'utf8')) as unknown;
    const chunk = claudeCodeSource.parse(records, { path: fixturePath(`${SUBAGENT}.jsonl`), carry: null, sidecar });
    expect(chunk.session).toMatchObject({
      project: 'worktrees',
      agentType: 'general-purpose',
      agentDescription: 'Research Claude Code teammates',
      parentSessionId: MAIN_SESSION,
    });
    // Later chunks keep the facts through the carry even when no sidecar is handed over again.
    const first = claudeCodeSource.parse(records.slice(0, 5), { path: '/x/agent.jsonl', carry: null, sidecar });
    const second = claudeCodeSource.parse(records.slice(5), { path: '/x/agent.jsonl', carry: first.carry });
    expect(second.session.agentDescription).toBe('Research Claude Code teammates');
  });

  test('a sidecar of the wrong shape is ignored', () => {
    for (const sidecar of [null, 'text', [1], { agentType: 7 }]) {
      const chunk = parseFixture(claudeCodeSource, `${SUBAGENT}.jsonl`);
      const odd = claudeCodeSource.parse(loadRecords(`${SUBAGENT}.jsonl`), { path: chunk.session.path, carry: null, sidecar });
      expect(odd.session).toMatchObject({ agentType: null, agentDescription: null });
    }
  });

  test.each([
    ['/home/me/.claude/projects/-home-me-shop/s1/subagents/agent-x.jsonl', '/home/me/shop/.claude/worktrees/agent-x', 'shop'],
    ['/home/me/.claude/projects/-home-me-shop/s1/subagents/agent-x.jsonl', '/home/me/shop/packages/api', 'shop'],
    ['/archive/s1/subagents/agent-x.jsonl', '/home/me/my.app/.worktrees/feature-x', 'my.app'],
    ['/archive/s1/subagents/agent-x.jsonl', '/home/me/shop/.git/worktrees/w1/src', 'shop'],
    ['/archive/s1.jsonl', '/home/me/worktrees', 'worktrees'],
  ])('%s in %s is project %s', (path, cwd, project) => {
    const records: RawRecord[] = [
      { line: 1, start: 0, end: 0, value: { type: 'user', sessionId: 's1', cwd, uuid: 'u1', message: { role: 'user', content: 'hello there' } } },
    ];
    expect(claudeCodeSource.parse(records, { path, carry: null }).session.project).toBe(project);
  });
});

describe('ingest hands the subagent meta file to the adapter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'moon-sidecar-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const context = {
    maxLineBytes: 64 * 1024 * 1024,
    normalize: (chunk) => ({ chunk, filtered: 0, filteredByReason: {} }),
  } as IngestContext;

  function placeSubagent(name: string, meta: string | null): string {
    const folder = join(dir, name, 'subagents');
    mkdirSync(folder, { recursive: true });
    const path = join(folder, 'agent-a52886dc180afb356.jsonl');
    copyFileSync(fixturePath(`${SUBAGENT}.jsonl`), path);
    if (meta !== null) writeFileSync(join(folder, 'agent-a52886dc180afb356.meta.json'), meta);
    return path;
  }

  test('a readable meta file sets the agent facts', () => {
    const path = placeSubagent('good', readFileSync(fixturePath(`${SUBAGENT}.meta.json`), 'utf8'));
    const read = readTranscript(context, path, readFileSync(path), null);
    expect(read.normalized.chunk.session).toMatchObject({ agentType: 'general-purpose', agentDescription: 'Research Claude Code teammates' });
    expect(read.warnings).toEqual([]);
  });

  test('a missing meta file is normal; a broken one is a warning, never a failure', () => {
    const missing = placeSubagent('missing', null);
    expect(readTranscript(context, missing, readFileSync(missing), null).warnings).toEqual([]);
    const broken = placeSubagent('broken', '{"agentType": ');
    const read = readTranscript(context, broken, readFileSync(broken), null);
    expect(read.normalized.chunk.session.agentType).toBeNull();
    expect(read.normalized.chunk.entries.length).toBeGreaterThan(0);
    expect(read.warnings).toEqual([expect.stringMatching(/agent-a52886dc180afb356\.meta\.json: not valid JSON/)]);
  });
});
