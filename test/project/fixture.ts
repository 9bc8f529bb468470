import { type CompactionAnchor, createEntry, type Entry, type Session } from '../../src/model.js';
import type { SessionDoc } from '../../src/project/doc.js';

/** Hand-built session fixtures shared by the project/ and normalize/ tests. */

export const SESSION_ID = 'sess-0405-dst';
const ms = (iso: string): number => Date.parse(iso);

let autoLine = 0;

/** An entry with sensible defaults; `line` defaults to a running counter, seq = line * 1000. */
export function makeEntry(partial: Partial<Entry> & Pick<Entry, 'role'>): Entry {
  const line = partial.line ?? (autoLine += 1);
  return createEntry({ id: `e${line}`, key: `k${line}`, sessionId: SESSION_ID, seq: line * 1000, line, ts: null, text: '', ...partial });
}

export function makeSession(partial: Partial<Session> = {}): Session {
  return {
    id: SESSION_ID,
    source: 'claude-code',
    path: '/Users/dev/.claude/projects/moon-app/sess-0405-dst.jsonl',
    project: 'moon-app',
    cwd: '/Users/dev/moon-app',
    branch: 'main',
    parentSessionId: null,
    startMs: null,
    endMs: null,
    title: null,
    agentType: null,
    agentDescription: null,
    ...partial,
  };
}

/**
 * Saturday 4 April 2026, 23:40 AEDT → Sunday 02:20 AEST: crosses local midnight and the end of daylight saving
 * (03:00 AEDT = 16:00Z becomes 02:00 AEST). Has high and normal tool calls, a compaction and a dangling call.
 */
export function buildBasicDoc(): SessionDoc {
  const entries: Entry[] = [
    makeEntry({ line: 1, ts: ms('2026-04-04T12:40:00Z'), role: 'user', text: 'How do I deploy the app to Cloudflare?\nThe build with `cargo build --release` fails | sometimes.' }),
    makeEntry({ line: 2, ts: ms('2026-04-04T12:40:20Z'), role: 'assistant', text: 'Let me look at wrangler.toml and src/app.ts first.' }),
    makeEntry({ line: 3, ts: ms('2026-04-04T12:40:30Z'), role: 'tool', toolName: 'Read', toolTarget: '/Users/dev/moon-app/wrangler.toml', text: 'Read /Users/dev/moon-app/wrangler.toml', priority: 'normal', result: 'name = "moon-app"\nmain = "src/app.ts"\ncompatibility_date = "2026-03-01"', resultId: 'r3' }),
    makeEntry({ line: 4, ts: ms('2026-04-04T12:41:00Z'), role: 'tool', toolName: 'Bash', toolTarget: 'cargo build --release', text: 'cargo build --release', priority: 'high', result: 'error[E0432]: unresolved import `better_sqlite3`\nexit code: 101', resultId: 'r4' }),
    makeEntry({ line: 5, ts: ms('2026-04-04T13:05:00Z'), role: 'assistant', text: 'The root cause is a missing feature flag in Cargo.toml. We\'ll use the `bundled` feature instead of linking the system SQLite.' }),
    makeEntry({ line: 6, ts: ms('2026-04-04T13:06:00Z'), role: 'tool', toolName: 'Edit', toolTarget: '/Users/dev/moon-app/Cargo.toml', text: 'Edit Cargo.toml: features = ["bundled"]', priority: 'high', result: 'The file Cargo.toml has been updated.', resultId: 'r6' }),
    makeEntry({ line: 7, ts: ms('2026-04-04T13:07:00Z'), role: 'tool', toolName: 'Bash', toolTarget: 'cargo build --release', text: 'cargo build --release', priority: 'high', result: 'Finished release [optimized] target(s) in 42.1s\nexit code: 0', resultId: 'r7' }),
    makeEntry({ line: 9, ts: ms('2026-04-04T15:50:00Z'), role: 'user', text: 'what about the environment variables? I need MOON_HOME and QMD_BIN set in .env' }),
    makeEntry({ line: 10, ts: ms('2026-04-04T15:51:00Z'), role: 'assistant', text: 'Decided to load them from `.env` via dotenv; confirmed `MOON_HOME` is read at CLI startup.' }),
    makeEntry({ line: 11, ts: ms('2026-04-04T15:52:00Z'), role: 'tool', toolName: 'Write', toolTarget: '/Users/dev/moon-app/.env', text: 'Write .env', priority: 'high', result: 'File created successfully at: /Users/dev/moon-app/.env', resultId: 'r11' }),
    makeEntry({ line: 12, ts: ms('2026-04-04T16:10:00Z'), role: 'tool', toolName: 'Bash', toolTarget: 'npx wrangler deploy', text: 'npx wrangler deploy', priority: 'high', result: null }),
    makeEntry({ line: 13, ts: ms('2026-04-04T16:12:00Z'), role: 'tool', toolName: 'WebSearch', toolTarget: 'wrangler deploy hangs', text: 'wrangler deploy hangs', priority: 'normal', result: 'Cloudflare docs: wrangler deploy may wait for authentication in a non-interactive shell.', resultId: 'r13' }),
    makeEntry({ line: 14, ts: ms('2026-04-04T16:20:00Z'), role: 'assistant', text: 'Deployment started; the wrangler command is still running. All tests pass locally with `npm test`.' }),
  ];
  const anchors: CompactionAnchor[] = [
    {
      id: 'compact-8',
      sessionId: SESSION_ID,
      ts: ms('2026-04-04T13:30:00Z'),
      line: 8,
      note: 'Summary: user wants to deploy moon-app to Cloudflare Workers.\nBuild fixed by enabling bundled SQLite; next: configure wrangler.',
      originId: 'uuid-origin-7',
    },
  ];
  return {
    session: makeSession({ startMs: ms('2026-04-04T12:40:00Z'), endMs: ms('2026-04-04T16:20:00Z') }),
    entries,
    anchors,
    filteredNoiseCount: 3,
    archivePath: '/home/dev/.moon/archives/raw/sess-0405-dst.jsonl',
    contentHash: 'sha256:9f2c4e0d1b7a',
    timezone: 'Australia/Sydney',
  };
}
