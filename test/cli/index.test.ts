import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

let root: string;
let home: string;
let corpus: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir();
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  corpus = join(root, 'corpus');
  mkdirSync(corpus, { recursive: true });
});
afterEach(() => cleanup());

function turns(count: number, prefix: string, startMs = Date.parse('2026-01-05T10:00:00Z')) {
  return Array.from({ length: count }, (_, index) => ({
    role: (index % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
    at: new Date(startMs + index * 60_000).toISOString(),
    id: `${prefix}-${index + 1}`,
    text: `${prefix} message number ${index + 1} about the ${index % 3 === 0 ? 'database' : 'frontend'} work`,
  }));
}

function dbCounts(): { entries: number; distinct: number; fts: number } {
  const db = new Database(join(home, 'moon.db'), { readonly: true });
  try {
    return {
      entries: db.prepare('SELECT count(*) FROM entries').pluck().get() as number,
      distinct: db.prepare('SELECT count(DISTINCT session_id || key) FROM entries').pluck().get() as number,
      fts: db.prepare("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'message'").pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

async function index(...args: string[]) {
  const run = await runMoon(['index', ...args, '--home', home, '--json']);
  return { ...run, report: run.stdout ? JSON.parse(run.stdout) : null };
}

describe('moon index', () => {
  test('indexes, then skips unchanged files', async () => {
    writeFileSync(join(corpus, 's1.jsonl'), claudeSession({ sessionId: 's1', turns: turns(6, 's1') }));
    const first = await index(corpus);
    expect(first.code, first.stderr).toBe(0);
    expect(first.report).toMatchObject({ files: 1, indexed: 1, entries: 6 });
    expect(existsSync(join(home, 'archives', 'mlib', 's1.md'))).toBe(true);
    const second = await index(corpus);
    expect(second.report).toMatchObject({ files: 1, indexed: 0, unchanged: 1, entries: 0 });
    expect(dbCounts().entries).toBe(6);
  });

  test('a grown file is read from its last committed offset and ends equal to a full index', async () => {
    const file = join(corpus, 's2.jsonl');
    const all = claudeSession({ sessionId: 's2', turns: turns(10, 's2') }).split('\n').filter(Boolean);
    writeFileSync(file, `${all.slice(0, 4).join('\n')}\n`);
    await index(corpus);
    appendFileSync(file, `${all.slice(4).join('\n')}\n`);
    const grown = await index(corpus);
    expect(grown.report).toMatchObject({ indexed: 1, resumed: 1, entries: 6 });
    expect(dbCounts().entries).toBe(10);
    const fresh = makeTempDir();
    try {
      const full = await runMoon(['index', corpus, '--home', fresh.path, '--json']);
      expect(JSON.parse(full.stdout).entries).toBe(10);
      // identical but for where each home keeps its raw archive
      expect(readFileSync(join(home, 'archives', 'mlib', 's2.md'), 'utf8').replaceAll(home, 'HOME')).toBe(
        readFileSync(join(fresh.path, 'archives', 'mlib', 's2.md'), 'utf8').replaceAll(fresh.path, 'HOME'),
      );
    } finally {
      fresh.cleanup();
    }
  });

  test('a partly written last line is left for the next run', async () => {
    const file = join(corpus, 's3.jsonl');
    const lines = claudeSession({ sessionId: 's3', turns: turns(4, 's3') }).split('\n').filter(Boolean);
    const last = lines[3]!;
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n${last.slice(0, 40)}`);
    const partial = await index(corpus);
    expect(partial.report.entries).toBe(3);
    expect(partial.report.warnings).toEqual([]);
    appendFileSync(file, `${last.slice(40)}\n`);
    const completed = await index(corpus);
    expect(completed.report).toMatchObject({ resumed: 1, entries: 1 });
    expect(dbCounts()).toMatchObject({ entries: 4, distinct: 4 });
  });

  test('a rewritten file is re-indexed from the start without duplicates', async () => {
    const file = join(corpus, 's4.jsonl');
    writeFileSync(file, claudeSession({ sessionId: 's4', turns: turns(6, 's4') }));
    await index(corpus);
    writeFileSync(file, claudeSession({ sessionId: 's4', turns: turns(3, 'rewritten') }));
    const again = await index(corpus);
    expect(again.report).toMatchObject({ indexed: 1, resumed: 0, entries: 3 });
    expect(dbCounts().entries).toBe(3);
  });

  test('a malformed line is skipped with file:line and the rest is indexed', async () => {
    const file = join(corpus, 's5.jsonl');
    const lines = claudeSession({ sessionId: 's5', turns: turns(4, 's5') }).split('\n').filter(Boolean);
    writeFileSync(file, [lines[0], lines[1], '{"type": "user", broken', lines[2], lines[3]].join('\n') + '\n');
    const run = await index(corpus);
    expect(run.code).toBe(0);
    expect(run.report.entries).toBe(4);
    expect(run.stderr).toContain(`${file}:3: malformed JSON`);
    expect(run.report.warnings).toEqual([expect.stringContaining(`${file}:3`)]);
  });

  test('binary, unrecognised and unreadable files fail alone; the run goes on', async () => {
    writeFileSync(join(corpus, 'good.jsonl'), claudeSession({ sessionId: 'good', turns: turns(2, 'good') }));
    writeFileSync(join(corpus, 'binary.jsonl'), Buffer.from([0x7b, 0x00, 0x01, 0x02, 0x0a]));
    writeFileSync(join(corpus, 'other.jsonl'), '{"hello": "world"}\n');
    symlinkSync(join(corpus, 'missing-target'), join(corpus, 'dangling.jsonl'));
    const run = await index(corpus);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({ files: 4, indexed: 1, failed: 3 });
    expect(run.stderr).toContain('binary.jsonl: binary file');
    expect(run.stderr).toContain('other.jsonl: not a Claude Code, Codex, OpenClaw or Puffin transcript');
    expect(run.stderr).toContain('dangling.jsonl');
    expect(dbCounts().entries).toBe(2);
  });

  test('an oversized line is skipped with its line number', async () => {
    const file = join(corpus, 's6.jsonl');
    const lines = claudeSession({ sessionId: 's6', turns: turns(3, 's6') }).split('\n').filter(Boolean);
    const huge = JSON.stringify({ type: 'user', sessionId: 's6', uuid: 'huge', timestamp: '2026-01-05T11:00:00Z', message: { role: 'user', content: 'x'.repeat(5000) } });
    writeFileSync(file, [lines[0], huge, lines[1], lines[2]].join('\n') + '\n');
    const run = await runMoon(['index', corpus, '--home', home, '--json'], { MOON_MAX_LINE_BYTES: '2000' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`s6\\.jsonl:2: line of \\d+ bytes exceeds`));
    expect(JSON.parse(run.stdout).entries).toBe(3);
  });

  test('secrets are redacted in projections, the index and recall; the raw archive keeps them, owner-only', async () => {
    const stripe = ['sk', 'live', 'Zx9Qw3Er5Ty7Ui9Op1As3Df5'].join('_');
    const github = `ghp_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5'}`;
    const url = `postgres://admin:${'Hunter2Secret'}@db.internal:5432/app`;
    writeFileSync(
      join(corpus, 'secret.jsonl'),
      claudeSession({
        sessionId: 'secret',
        turns: [
          { role: 'user', at: '2026-01-05T10:00:00Z', text: `Please set STRIPE_SECRET_KEY=${stripe} in the env file` },
          { role: 'assistant', at: '2026-01-05T10:01:00Z', text: `Configured the database at ${url} and the token ${github} for the deploy.` },
        ],
      }),
    );
    const run = await index(corpus);
    expect(run.code, run.stderr).toBe(0);
    const projection = readFileSync(join(home, 'archives', 'mlib', 'secret.md'), 'utf8');
    for (const secret of [stripe, github, 'Hunter2Secret']) expect(projection).not.toContain(secret);
    expect(projection).toContain('[REDACTED:');
    const recall = await runMoon(['recall', 'database deploy env', '--home', home, '--json']);
    const text = recall.stdout;
    for (const secret of [stripe, github, 'Hunter2Secret']) expect(text).not.toContain(secret);
    const db = readFileSync(join(home, 'moon.db'));
    expect(db.includes(Buffer.from(stripe))).toBe(false);
    const rawDir = join(home, 'archives', 'raw', 'claude-code');
    const raw = join(rawDir, readdirSync(rawDir)[0]!);
    expect(readFileSync(raw, 'utf8')).toContain(stripe);
    expect(statSync(raw).mode & 0o777).toBe(0o600);
    expect(statSync(rawDir).mode & 0o777).toBe(0o700);
    const ledger = readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8').trim().split('\n');
    expect(ledger).toHaveLength(1);
    expect(Object.keys(JSON.parse(ledger[0]!)).sort()).toEqual([
      'archive_path',
      'content_hash',
      'created_at_epoch_secs',
      'indexed_collection',
      'projection_filtered_noise_count',
      'session_id',
    ]);
  });

  test('fork sessions and the current session are excluded whole', async () => {
    const fork = [
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-05T10:00:00Z', sessionId: 'fork', content: 'search memory' }),
      claudeSession({ sessionId: 'fork', turns: turns(2, 'fork') }).trim(),
    ].join('\n');
    writeFileSync(join(corpus, 'fork.jsonl'), `${fork}\n`);
    writeFileSync(join(corpus, 'current.jsonl'), claudeSession({ sessionId: 'current', turns: turns(2, 'current') }));
    writeFileSync(join(corpus, 'kept.jsonl'), claudeSession({ sessionId: 'kept', turns: turns(2, 'kept') }));
    const run = await runMoon(['index', corpus, '--home', home, '--json'], { MOON_CURRENT_SESSION_ID: 'current' });
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ indexed: 1, excluded: 2 });
    expect(report.excluded_files.map((item: { reason: string }) => item.reason).sort()).toEqual([
      'current session',
      'fork session (first record is a queue-operation)',
    ]);
    // once it is no longer the current session, it is indexed
    const later = await index(corpus);
    expect(later.report).toMatchObject({ indexed: 1, excluded: 1 });
  });

  test('noise is filtered and counted per session', async () => {
    writeFileSync(
      join(corpus, 'noisy.jsonl'),
      claudeSession({
        sessionId: 'noisy',
        turns: [
          { role: 'user', at: '2026-01-05T10:00:00Z', text: 'Help me implement JWT refresh tokens' },
          { role: 'user', at: '2026-01-05T10:00:10Z', text: 'ok' },
          { role: 'user', at: '2026-01-05T10:00:20Z', text: '[Request interrupted by user]' },
          { role: 'assistant', at: '2026-01-05T10:00:30Z', text: 'API Error: Rate limit exceeded for this model' },
          { role: 'assistant', at: '2026-01-05T10:00:40Z', text: '[1/5] abc1234 • Dec 28\nThis session discussed JWT' },
          { role: 'assistant', at: '2026-01-05T10:01:00Z', text: 'Here is the refresh token implementation with rotation.' },
        ],
      }),
    );
    const run = await index(corpus);
    expect(run.report).toMatchObject({ entries: 2, filtered: 4 });
    const projection = readFileSync(join(home, 'archives', 'mlib', 'noisy.md'), 'utf8');
    expect(projection).toMatch(/projection_filtered_noise_count: 4/);
    const ledger = JSON.parse(readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8').trim());
    expect(ledger.projection_filtered_noise_count).toBe(4);
  });

  test('snapshot is idempotent for the same hash and session', async () => {
    writeFileSync(join(corpus, 'snap.jsonl'), claudeSession({ sessionId: 'snap', turns: turns(3, 'snap') }));
    const first = await runMoon(['snapshot', corpus, '--home', home, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const second = await runMoon(['snapshot', corpus, '--home', home, '--json']);
    expect(second.code).toBe(0);
    expect(readFileSync(join(home, 'archives', 'ledger.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(home, 'moon.db'))).toBe(false);
    const projection = readFileSync(join(home, 'archives', 'mlib', 'snap.md'), 'utf8');
    expect(projection.startsWith('---\nmoon_archive_projection: 2\n')).toBe(true);
  });

  test('--reproject rewrites v1 projections as v2', async () => {
    writeFileSync(join(corpus, 'v2.jsonl'), claudeSession({ sessionId: 'v2', turns: turns(2, 'v2') }));
    await index(corpus);
    const mlib = join(home, 'archives', 'mlib');
    writeFileSync(
      join(mlib, 'legacy.md'),
      [
        '---',
        'moon_archive_projection: 1',
        'session_id: "legacy"',
        'archive_jsonl_path: "/nowhere/legacy.jsonl"',
        'content_hash: "abc"',
        'created_at_epoch_secs: 1708480000',
        '---',
        '',
        '# Archive Projection',
        '',
        '## Signals',
        '- [user] how do I deploy the app',
        '- [assistant] You can deploy using cargo run -- install',
        '',
      ].join('\n'),
    );
    const run = await index('--reproject', corpus);
    expect(run.code, run.stderr).toBe(0);
    const legacy = readFileSync(join(mlib, 'legacy.md'), 'utf8');
    expect(legacy).toContain('moon_archive_projection: 2');
    expect(legacy).toContain('deploy using cargo run');
    expect(readFileSync(join(mlib, 'v2.md'), 'utf8')).toContain('moon_archive_projection: 2');
  });

  test('status and config report the index', async () => {
    writeFileSync(join(corpus, 'st.jsonl'), claudeSession({ sessionId: 'st', turns: turns(4, 'st') }));
    await index(corpus);
    const status = await runMoon(['status', '--home', home, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ sessions: 1, entries: 4, by_source: { 'claude-code': { sessions: 1, entries: 4 } }, last_run: { command: 'index', files: 1 } });
    const human = await runMoon(['status', '--home', home]);
    expect(human.stdout).toContain('claude-code: 1 sessions, 4 entries');
    const config = await runMoon(['config', '--show', '--home', home], { MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' });
    expect(config.stdout).toContain('distill.residential_timezone = "Australia/Sydney"');
  });

  test('bad configuration names the key', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'moon.toml'), '[distill]\nresidential_timezone = "Mars/Olympus"\n');
    const zone = await runMoon(['status', '--home', home], { MOON_RESIDENTIAL_TIMEZONE: undefined });
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('distill.residential_timezone');
    writeFileSync(join(home, 'moon.toml'), '[recall]\nlimt = 3\n');
    const unknown = await runMoon(['status', '--home', home], { MOON_RESIDENTIAL_TIMEZONE: undefined });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('recall.limt');
    writeFileSync(join(home, 'moon.toml'), '');
    const env = await runMoon(['status', '--home', home], { MOON_REDACT: 'maybe' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('MOON_REDACT');
  });

  test('recall finds what was indexed across formats', async () => {
    writeFileSync(join(corpus, 'x.jsonl'), claudeSession({ sessionId: 'x', turns: turns(4, 'x') }));
    await index(corpus);
    const run = await runMoon(['recall', 'database', '--home', home, '--json']);
    const result = JSON.parse(run.stdout) as RecallResult;
    expect(result.matches[0]!.metadata.session_id).toBe('x');
  });
});
