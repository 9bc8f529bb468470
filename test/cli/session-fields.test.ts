import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

/**
 * The words a person uses for a session as a whole — its title, what its compaction summary says, the files it
 * touched, the errors it hit — found from `moon index` alone (issue 34): no model, no digest step.
 */
let home: string;
let corpus: string;
let cleanup: () => void;

const COMPACT_SUMMARY =
  'This session is being continued from a previous conversation that ran out of context. Summary: we migrated the ' +
  'invoice exporter from CSV to Parquet, partitioned by month, and kept the CSV writer behind a flag for one release.';

beforeAll(async () => {
  const temp = makeTempDir('moon-fields-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  corpus = join(temp.path, 'corpus');
  mkdirSync(corpus, { recursive: true });
  const exporter = claudeSession({
    sessionId: 'exporter-rewrite',
    cwd: '/home/dev/books',
    turns: [
      { role: 'user', at: '2026-03-02T09:00:00Z', id: 'x-1', text: 'Start on the invoices job; the nightly run is too slow.' },
      {
        role: 'assistant',
        at: '2026-03-02T09:01:00Z',
        id: 'x-2',
        text: 'Opening the writer module.',
        tool: { name: 'Edit', input: { file_path: '/home/dev/books/src/invoiceWriter.ts', old_string: 'a', new_string: 'b' }, result: 'ok' },
      },
      {
        role: 'assistant',
        at: '2026-03-02T09:03:00Z',
        id: 'x-3',
        text: 'Running the tests.',
        tool: { name: 'Bash', input: { command: 'npm test' }, result: 'Error: ENOSPC: no space left on device, write', isError: true },
      },
      { role: 'assistant', at: '2026-03-02T09:05:00Z', id: 'x-4', text: 'The job now writes one file per month.' },
    ],
  });
  const compacted = JSON.stringify({
    parentUuid: 'x-4',
    isSidechain: false,
    type: 'user',
    isCompactSummary: true,
    sessionId: 'exporter-rewrite',
    cwd: '/home/dev/books',
    timestamp: '2026-03-02T09:06:00Z',
    uuid: 'x-5',
    message: { role: 'user', content: COMPACT_SUMMARY },
  });
  const title = JSON.stringify({ type: 'summary', summary: 'Nightly ledger speed-up', leafUuid: 'x-4' });
  writeFileSync(join(corpus, 'exporter.jsonl'), `${title}\n${exporter}${compacted}\n`);
  writeFileSync(
    join(corpus, 'other.jsonl'),
    claudeSession({
      sessionId: 'exporter-config',
      cwd: '/home/dev/books',
      turns: [
        { role: 'user', at: '2026-03-03T10:00:00Z', id: 'o-1', text: 'The invoice exporter config needs a new exporter name; rename the invoice exporter section.' },
        { role: 'assistant', at: '2026-03-03T10:01:00Z', id: 'o-2', text: 'Renamed the invoice exporter section in the exporter config.' },
        { role: 'user', at: '2026-03-03T10:02:00Z', id: 'o-3', text: 'Does the invoice exporter still start with the old name?' },
        { role: 'assistant', at: '2026-03-03T10:03:00Z', id: 'o-4', text: 'Yes: the invoice exporter starts under its new name and the old one is an alias.' },
      ],
    }),
  );
  const indexed = await runMoon(['index', corpus], { MOON_HOME: home });
  expect(indexed.code, indexed.stderr).toBe(0);
});

afterAll(() => cleanup());

/** The summary is opt-in (store/types.ts DEFAULT_SESSION_FIELDS): these cases ask for it. */
const WITH_SUMMARY = { MOON_RECALL_SESSION_FIELDS: 'title,summary,files,errors' };

async function recallSessions(query: string, env: Record<string, string> = {}, extra: string[] = []): Promise<RecallResult> {
  const run = await runMoon(['recall', query, '--json', ...extra], { MOON_HOME: home, ...WITH_SUMMARY, ...env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecallResult;
}

describe('session fields', () => {
  test('moon index writes every session\'s fields: title, compaction summary, files touched, errors hit', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM session_fields').pluck().get()).toBe(2);
      const texts = JSON.parse(db.prepare('SELECT texts FROM session_field_texts WHERE session_id = ?').pluck().get('exporter-rewrite') as string);
      expect(texts.title).toBe('Nightly ledger speed-up');
      expect(texts.summary).toContain('Parquet');
      expect(texts.files).toContain('src/invoiceWriter.ts');
      expect(texts.files).toContain('invoice writer');
      expect(texts.files).not.toContain('/home/dev/books/');
      expect(texts.errors).toContain('ENOSPC');
      expect(texts.digest).toContain('npm test');
    } finally {
      db.close();
    }
  });

  test('words only the summary holds rank the summarised session first; with fields off, they do not', async () => {
    const query = 'which session moved the invoice exporter to parquet';
    const withFields = await recallSessions(query);
    expect(withFields.matches[0]?.metadata.session_id).toBe('exporter-rewrite');
    const without = await recallSessions(query, { MOON_RECALL_SESSION_FIELDS: 'none' });
    expect(without.matches[0]?.metadata.session_id).toBe('exporter-config');
  });

  test('by default the summary is not ranked (it retells the messages); the title, files and errors are', async () => {
    const query = 'which session moved the invoice exporter to parquet';
    const run = await runMoon(['recall', query, '--json'], { MOON_HOME: home });
    expect((JSON.parse(run.stdout) as RecallResult).matches[0]?.metadata.session_id).toBe('exporter-config');
    const byTitle = await runMoon(['recall', 'nightly ledger speed', '--json'], { MOON_HOME: home });
    expect((JSON.parse(byTitle.stdout) as RecallResult).matches[0]?.metadata.session_id).toBe('exporter-rewrite');
  });

  test('the title and the files touched name the session too', async () => {
    expect((await recallSessions('nightly ledger speed'))?.matches[0]?.metadata.session_id).toBe('exporter-rewrite');
    expect((await recallSessions('which session changed the invoice writer'))?.matches[0]?.metadata.session_id).toBe('exporter-rewrite');
  });

  test('a session matched by its summary alone is returned, and --explain names the fields that matched', async () => {
    const run = await runMoon(['recall', 'exporter parquet', '--explain'], { MOON_HOME: home, ...WITH_SUMMARY });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/session fields: summary \(exporter, parquet\)/);
    // The session's messages hold neither word: it is returned for its summary, its latest messages shown.
    expect(run.stdout).toMatch(/exporter-rewrite/);
    expect(run.stdout).toMatch(/matched in: session summary\n/);
    expect(run.stdout).toMatch(/matched in: message text\n/);
    const json = await recallSessions('exporter parquet', {}, ['--explain']);
    const rewrite = json.matches.find((match) => match.metadata.session_id === 'exporter-rewrite')!;
    const explain = rewrite.metadata.explain as { signals: Record<string, unknown>; session_fields?: { field: string; terms: string[] }[] }[];
    expect(explain[0]!.signals.session).toBeDefined();
    expect(explain[0]!.session_fields).toEqual([{ field: 'summary', terms: ['exporter', 'parquet'] }]);
  });

  test('the bm25 baseline never reads the fields', async () => {
    const result = await recallSessions('exporter parquet', { MOON_RECALL_STRATEGY: 'bm25' }, ['--explain']);
    for (const match of result.matches) {
      for (const item of match.metadata.explain as { signals: Record<string, unknown> }[]) expect(item.signals.session).toBeUndefined();
    }
  });

  test('a home indexed before fields existed gets them at the next index run, nothing else changed', async () => {
    const db = new Database(join(home, 'moon.db'));
    try {
      db.exec('DELETE FROM session_field_terms; DELETE FROM session_field_texts; DELETE FROM session_fields;');
    } finally {
      db.close();
    }
    const before = await recallSessions('which session moved the invoice exporter to parquet');
    expect(before.matches[0]?.metadata.session_id).toBe('exporter-config');
    const indexed = await runMoon(['index', corpus], { MOON_HOME: home });
    expect(indexed.code, indexed.stderr).toBe(0);
    const after = await recallSessions('which session moved the invoice exporter to parquet');
    expect(after.matches[0]?.metadata.session_id).toBe('exporter-rewrite');
  });

  test('MOON_RECALL_SESSION_FIELDS names a field moon does not know: a clear error naming the key', async () => {
    const run = await runMoon(['recall', 'exporter'], { MOON_HOME: home, MOON_RECALL_SESSION_FIELDS: 'title,headline' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/recall\.session_fields|MOON_RECALL_SESSION_FIELDS/);
  });
});
