import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Entry } from '../../src/model.js';
import {
  GENERAL_LIMIT,
  TOOL_RESULT_LIMIT,
  formatInlineCode,
  renderProjection,
  truncateText,
} from '../../src/project/index.js';
import { buildBasicDoc, makeEntry, makeSession } from './fixture.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/golden/render-basic.md');

/** Deterministic Fisher–Yates with a tiny LCG, so the "shuffle" is the same on every run. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function sectionOf(markdown: string, title: string): string {
  const start = markdown.indexOf(`## ${title}\n`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('renderProjection', () => {
  it('matches the golden file byte for byte (UPDATE_GOLDEN=1 rewrites it)', () => {
    const output = renderProjection(buildBasicDoc());
    if (process.env['UPDATE_GOLDEN'] === '1') {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, output);
    }
    expect(output).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('is deterministic: same input twice, and entries/anchors in shuffled order', () => {
    const doc = buildBasicDoc();
    const first = renderProjection(doc);
    expect(renderProjection(buildBasicDoc())).toBe(first);
    for (const seed of [1, 7, 42]) {
      expect(renderProjection({ ...doc, entries: shuffle(doc.entries, seed), anchors: shuffle(doc.anchors, seed) })).toBe(first);
    }
  });

  it('shows DST-correct local times on both sides of the change, and both labels in frontmatter', () => {
    const output = renderProjection(buildBasicDoc());
    expect(output).toContain('local_timezone: "AEDT (+11:00) — AEST (+10:00)"');
    expect(output).toContain('time_range_local: "2026-04-04T23:40:00+11:00 — 2026-04-05T02:20:00+10:00"');
    expect(output).toContain('| 10 | 15:52:00Z | 02:52:00 AEDT | tool:Write |');
    expect(output).toContain('| 11 | 16:10:00Z | 02:10:00 AEST | tool:Bash |');
    expect(output).toContain('> Session: 2026-04-04 23:40 AEDT – 2026-04-05 02:20 AEST (2026-04-04 12:40–16:20 UTC)');
    expect(output).toContain('created_at_epoch_secs: 1775319600');
  });

  it('renders tool calls as one transaction line with priority, including a dangling call', () => {
    const tools = sectionOf(renderProjection(buildBasicDoc()), 'Tool Activity');
    expect(tools).toContain('- [13:07:00Z] **high** `cargo build --release` → Finished release [optimized] target(s) in 42.1s exit code: 0');
    expect(tools).toContain('- [16:10:00Z] **high** `npx wrangler deploy` → (no result)');
    expect(tools).toContain('- [12:40:30Z] **normal** `Read /Users/dev/moon-app/wrangler.toml`');
    expect(tools.indexOf('### Read')).toBeLessThan(tools.indexOf('### Bash'));
  });

  it('says "- (none)" for empty sections and still renders without timestamps', () => {
    const output = renderProjection({
      session: makeSession({ id: 'empty' }),
      entries: [],
      anchors: [],
      filteredNoiseCount: 0,
      archivePath: '/a.jsonl',
      contentHash: 'h',
      timezone: 'UTC',
    });
    expect(output).toContain('created_at_epoch_secs: 0');
    expect(output).toContain('time_range_utc: null');
    expect(output).toContain('> Session: time unknown');
    for (const title of ['Timeline', 'Tool Activity', 'Compaction Notes']) expect(sectionOf(output, title)).toContain('- (none)');
    expect(output.match(/- \(none\)/g)?.length).toBe(6);
  });

  it('truncates general text at 512 and tool results at 1024 characters with …', () => {
    const long = 'word '.repeat(400);
    const doc = buildBasicDoc();
    const entries: Entry[] = [
      makeEntry({ line: 100, ts: Date.parse('2026-04-04T16:30:00Z'), role: 'assistant', text: long }),
      makeEntry({ line: 101, ts: Date.parse('2026-04-04T16:31:00Z'), role: 'tool', toolName: 'Bash', text: `echo ${long}`, priority: 'high', result: 'x'.repeat(3000) }),
    ];
    const output = renderProjection({ ...doc, entries: [...doc.entries, ...entries] });
    const assistantLine = output.split('\n').find((l) => l.startsWith('- [16:30:00Z] word'));
    expect(assistantLine).toBeDefined();
    const text = (assistantLine as string).slice('- [16:30:00Z] '.length);
    expect(Array.from(text)).toHaveLength(GENERAL_LIMIT);
    expect(text.endsWith('…')).toBe(true);
    const txLine = output.split('\n').find((l) => l.startsWith('- [16:31:00Z] **high**')) as string;
    const result = txLine.slice(txLine.indexOf(' → ') + 3);
    expect(Array.from(result)).toHaveLength(TOOL_RESULT_LIMIT);
    expect(result.endsWith('…')).toBe(true);
    const call = txLine.slice('- [16:31:00Z] **high** `'.length, txLine.indexOf('` → '));
    expect(Array.from(call)).toHaveLength(GENERAL_LIMIT);
    // Timeline summaries stay one short line.
    const row = output.split('\n').find((l) => l.includes('| 16:30:00Z |')) as string;
    const summary = row.split(' | ')[4] as string;
    expect(Array.from(summary.replace(/ \|$/, '')).length).toBeLessThanOrEqual(160);
  });

  it('keeps markdown intact: no raw newlines in items, pipes escaped in cells, backticks fenced', () => {
    const doc = buildBasicDoc();
    const tricky = makeEntry({
      line: 200,
      ts: Date.parse('2026-04-04T16:40:00Z'),
      role: 'tool',
      toolName: 'Bash',
      text: 'grep -n "a|b" `which node`\nsecond line',
      priority: 'normal',
      result: 'line1\n\nline2 | with pipe',
    });
    const output = renderProjection({ ...doc, entries: [...doc.entries, tricky] });
    expect(output).toContain('| tool:Bash | ``grep -n "a\\|b" `which node` second line`` → line1 |');
    expect(output).toContain('- [16:40:00Z] **normal** ``grep -n "a|b" `which node` second line`` → line1 line2 | with pipe');
    const timelineRows = sectionOf(output, 'Timeline').split('\n').filter((l) => l.startsWith('|'));
    for (const row of timelineRows) expect(row.replace(/\\\|/g, '').split('|').length).toBe(7);
  });

  it('escapes frontmatter values safely', () => {
    const doc = buildBasicDoc();
    const output = renderProjection({ ...doc, session: { ...doc.session, cwd: 'C:\\work\\"quoted"\nnext', parentSessionId: 'parent-1' } });
    expect(output).toContain('cwd: "C:\\\\work\\\\\\"quoted\\"\\nnext"');
    expect(output).toContain('parent_session_id: "parent-1"');
    expect(buildBasicDoc().session.parentSessionId).toBeNull();
    expect(renderProjection(doc)).not.toContain('parent_session_id');
  });
});

describe('text helpers', () => {
  it('truncateText never splits a surrogate pair and counts the ellipsis', () => {
    const text = '😀'.repeat(20);
    const cut = truncateText(text, 10);
    expect(Array.from(cut)).toHaveLength(10);
    expect(cut).toBe(`${'😀'.repeat(9)}…`);
    expect(truncateText('a\n\tb  c', 10)).toBe('a b c');
  });

  it('formatInlineCode picks a fence longer than any backtick run', () => {
    expect(formatInlineCode('npm test')).toBe('`npm test`');
    expect(formatInlineCode('a ` b')).toBe('``a ` b``');
    expect(formatInlineCode('`x`')).toBe('`` `x` ``');
    expect(formatInlineCode('a `` b')).toBe('```a `` b```');
  });
});
