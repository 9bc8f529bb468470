import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { IndexReport } from '../../src/ingest/report.js';
import type { Wire } from '../../src/records/wire.js';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';

/**
 * A Puffin history through `moon index` (in process, real SQLite): the history is rewritten whole on every save,
 * and only the conversations (sessions) whose prompts changed are indexed again.
 */
const FIXTURE = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8');

type Prompt = { id: string; parentId?: string | null; content: string; timestamp: number | string; response: { content: string; timestamp?: number } | null; children?: string[] };
type History = { activeBranch: string; branches: Record<string, { prompts: Prompt[] }> };

let temp: { path: string; cleanup: () => void };
let home: string;
let root: string;
let historyPath: string;

beforeEach(() => {
  temp = makeTempDir('moon-puffin-ingest-');
  home = join(temp.path, 'home');
  root = join(temp.path, 'work');
  historyPath = join(root, 'proj', '.puffin', 'history.json');
  mkdirSync(join(root, 'proj', '.puffin'), { recursive: true });
  mkdirSync(home);
  writeFileSync(historyPath, FIXTURE);
});
afterEach(() => temp.cleanup());

const env = () => ({ MOON_HOME: home, MOON_INDEX_WORKERS: '0' });
const load = (): History => JSON.parse(readFileSync(historyPath, 'utf8')) as History;
/** Save as Puffin does: the whole file rewritten (a later mtime, so the run sees the change). */
const save = (history: History): void => writeFileSync(historyPath, JSON.stringify(history, null, 2));
const promptOf = (history: History, id: string): Prompt => {
  for (const branch of Object.values(history.branches)) {
    const found = branch.prompts.find((prompt) => prompt.id === id);
    if (found) return found;
  }
  throw new Error(`no prompt ${id}`);
};

async function index(...args: string[]): Promise<Wire<IndexReport>> {
  const run = await runMoon(['index', ...(args.some((arg) => !arg.startsWith('--')) ? args : [root, ...args]), '--json'], env());
  const report = JSON.parse(run.stdout) as Wire<IndexReport>;
  // A run with a file that is not a transcript exits 2 (bad input) and still prints its report.
  expect(run.code, run.stderr).toBe(report.failed > 0 ? 2 : 0);
  return report;
}

async function recallIds(query: string): Promise<string[]> {
  const run = await runMoon(['recall', query, '--json'], env());
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as RecallResult).matches.map((match) => match.metadata.session_id);
}

async function sessionIds(): Promise<string[]> {
  const run = await runMoon(['sessions', '--json', '--limit', '100'], env());
  return (JSON.parse(run.stdout) as { sessions: { session_id: string }[] }).sessions.map((session) => session.session_id).sort();
}

const projection = (sessionId: string) => join(home, 'archives', 'mlib', `${sessionId}.md`);

const EDITED = 'puffin-mkhvfnibzunc1jg4k';
const ALL = [
  'puffin-128c37f7aaaa3333',
  'puffin-d4d4553b-533f-41f5-a53f-54fe2af9f77e',
  'puffin-miw9p9ddf6481qlsd',
  'puffin-mixuz8xfwvqzwsli5',
  'puffin-mjbdk3fu1cn29aqxe',
  'puffin-mjgemr768h20qxza1',
  'puffin-mjhiejc9sl109fl94',
  'puffin-mkhvfnibzunc1jg4k',
];

describe('moon index on a Puffin history', () => {
  test('indexes one session per conversation, then nothing while the file is unchanged', async () => {
    const first = await index();
    expect(first.indexed).toBe(1);
    expect(first.sessions).toEqual(ALL);
    expect(first.documents).toEqual({ sessions_written: 8, sessions_unchanged: 0, sessions_removed: 0, parts_added: 19, parts_modified: 0, parts_removed: 0 });
    expect(first.projections).toBe(8);
    expect(first.warnings).toEqual([]);
    expect(await sessionIds()).toEqual(ALL);
    for (const id of ALL) expect(existsSync(projection(id)), id).toBe(true);
    const again = await index();
    expect(again).toMatchObject({ indexed: 0, unchanged: 1, sessions: [], projections: 0 });
  });

  test('after one prompt is edited, only its conversation is indexed again', async () => {
    await index();
    const before = new Map(ALL.map((id) => [id, statSync(projection(id)).mtimeMs]));
    const history = load();
    const edited = promptOf(history, 'mkhvhauvf56ux7xwk');
    edited.response!.content = `${edited.response!.content}\nWe settled on the ocelot-wharf plan.`;
    save(history);
    const report = await index();
    expect(report.indexed).toBe(1);
    expect(report.sessions).toEqual([EDITED]);
    expect(report.documents).toEqual({ sessions_written: 1, sessions_unchanged: 7, sessions_removed: 0, parts_added: 0, parts_modified: 1, parts_removed: 0 });
    // Entries written: the edited conversation's, and only those (2 prompts, 2 responses).
    expect(report.entries).toBe(4);
    expect(report.projections).toBe(1);
    for (const id of ALL) {
      if (id === EDITED) continue;
      expect(statSync(projection(id)).mtimeMs, id).toBe(before.get(id));
    }
    expect(await recallIds('ocelot-wharf')).toEqual([EDITED]);
  });

  test('a save that changes no prompt (another branch selected) writes no session', async () => {
    await index();
    const history = load();
    history.activeBranch = 'ui';
    save(history);
    const report = await index();
    expect(report).toMatchObject({ indexed: 0, unchanged: 1, sessions: [], projections: 0 });
    expect(report.documents.sessions_unchanged).toBe(8);
    // The new bytes are remembered: the next run does not read the file again.
    expect((await index()).documents.sessions_unchanged).toBe(0);
  });

  test('a reply added to a thread re-indexes that thread; a deleted thread is removed with its projection and digest', async () => {
    await index();
    expect((await runMoon(['digest', '--all'], env())).code).toBe(0);
    const digested = async (): Promise<string[]> => {
      const run = await runMoon(['digest', '--list', '--all-namespaces', '--limit', '100', '--json'], env());
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { digests: { session_id: string }[] }).digests.map((digest) => digest.session_id);
    };
    expect(await digested()).toContain(EDITED);
    const history = load();
    const parent = promptOf(history, 'mjhiejc9sl109fl94');
    parent.children = ['reply-1'];
    history.branches.tmp!.prompts.push({ id: 'reply-1', parentId: parent.id, content: 'Now wire the narwhal exporter into the build.', timestamp: 1_767_100_000_000, response: null, children: [] });
    history.branches['code-reviews']!.prompts = [];
    save(history);
    const report = await index();
    expect(report.sessions).toEqual(['puffin-mjhiejc9sl109fl94']);
    expect(report.documents).toEqual({ sessions_written: 1, sessions_unchanged: 6, sessions_removed: 1, parts_added: 1, parts_modified: 0, parts_removed: 2 });
    expect(await sessionIds()).toEqual(ALL.filter((id) => id !== EDITED));
    expect(existsSync(projection(EDITED))).toBe(false);
    expect(report.removed_sessions).toEqual([EDITED]);
    expect(await digested()).not.toContain(EDITED);
    expect(await recallIds('narwhal')).toEqual(['puffin-mjhiejc9sl109fl94']);
    expect(readFileSync(projection('puffin-mjhiejc9sl109fl94'), 'utf8')).toContain('narwhal exporter');
  });

  test('malformed entries are skipped with their reason, named by file; the rest is indexed', async () => {
    const history = load();
    history.branches.tmp!.prompts.push(42 as never, { id: 'no-content', timestamp: 1 } as never);
    save(history);
    const report = await index();
    expect(report.failed).toBe(0);
    expect(report.documents.sessions_written).toBe(8);
    expect(report.warnings).toEqual([
      `${historyPath}: skipped branch tmp, prompt 2: prompt is not an object`,
      `${historyPath}: skipped branch tmp, prompt 3: prompt no-content has no content string`,
    ]);
  });

  test('a history that is not valid JSON is an error naming the file, until it is fixed', async () => {
    writeFileSync(historyPath, `${FIXTURE.slice(0, 5000)}`);
    const broken = await index();
    expect(broken.failed).toBe(1);
    expect(broken.errors[0]!.reason).toMatch(new RegExp(`^${historyPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON \\(`));
    expect(await sessionIds()).toEqual([]);
    writeFileSync(historyPath, FIXTURE);
    expect((await index()).sessions).toEqual(ALL);
  });

  test('the file itself or its project folder can be named; --force writes every session again', async () => {
    expect((await index(historyPath)).sessions).toEqual(ALL);
    expect((await index(join(root, 'proj'))).unchanged).toBe(1);
    const forced = await index('--force');
    expect(forced.documents).toMatchObject({ sessions_written: 8, sessions_unchanged: 0 });
  });

  test('a forgotten conversation stays out when its thread changes later', async () => {
    await index();
    const forget = await runMoon(['forget', 'puffin-mjgemr768h20qxza1'], env());
    expect(forget.code, forget.stderr).toBe(0);
    const history = load();
    promptOf(history, 'mjgemr768h20qxza1').content += ' and the capybara lane';
    save(history);
    const report = await index('--force');
    expect(report.sessions).not.toContain('puffin-mjgemr768h20qxza1');
    expect(await recallIds('capybara')).toEqual([]);
  });

  test('moon rebuild restores the conversations from the raw copy, and the history takes them back without a duplicate', async () => {
    await index();
    const rebuilt = await runMoon(['rebuild'], env());
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain('8 sessions');
    const listed = async () => (JSON.parse((await runMoon(['sessions', '--json', '--limit', '100'], env())).stdout) as { sessions: { session_id: string; project: string; cwd: string }[] }).sessions;
    expect((await listed()).map((session) => session.project)).toEqual(Array(8).fill('proj'));
    const again = await index();
    expect(again.sessions).toEqual(ALL);
    const after = await listed();
    expect(after).toHaveLength(8);
    expect(new Set(after.map((session) => session.cwd))).toEqual(new Set([join(root, 'proj')]));
    expect((await index()).unchanged).toBe(1);
  });

  test('moon usage leaves a Puffin history out (it records no context usage) rather than failing on it', async () => {
    const run = await runMoon(['usage', root, '--json'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
  });

  test('a copy of the project holds the same conversations: indexed once, the copy named in one warning', async () => {
    await index();
    const copy = join(root, 'proj-copy', '.puffin', 'history.json');
    mkdirSync(join(root, 'proj-copy', '.puffin'), { recursive: true });
    writeFileSync(copy, FIXTURE);
    const report = await index();
    expect(report.sessions).toEqual([]);
    expect(report.warnings).toEqual([`${copy}: 8 conversations are indexed from ${historyPath} already; not indexed twice`]);
    expect(await sessionIds()).toEqual(ALL);
  });

  test('moon snapshot writes one raw copy and a projection per conversation, without the index', async () => {
    const run = await runMoon(['snapshot', root, '--json'], env());
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { archived: { session_id: string; archive_path: string; projection_path: string }[] };
    expect(report.archived.map((item) => item.session_id).sort()).toEqual(ALL);
    expect(new Set(report.archived.map((item) => item.archive_path)).size).toBe(1);
    expect(report.archived[0]!.archive_path).toMatch(/archives\/raw\/puffin\/[0-9a-f]{16}\/proj\/\.puffin\/history\.json$/);
    for (const item of report.archived) expect(existsSync(item.projection_path)).toBe(true);
  });
});
