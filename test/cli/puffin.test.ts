import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, spawnMoon } from '../helpers/cli.js';

/**
 * A Puffin history end to end through the built CLI (`bin/moon.js`, its ingest workers, real SQLite): a folder
 * holding `proj/.puffin/history.json` is indexed like any transcript folder, then listed, recalled, shown.
 */
const FIXTURE = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url), 'utf8');

let temp: { path: string; cleanup: () => void };
let env: Record<string, string>;
let work: string;
let historyPath: string;

beforeAll(() => {
  temp = makeTempDir('moon-puffin-cli-');
  work = join(temp.path, 'work');
  historyPath = join(work, 'proj', '.puffin', 'history.json');
  mkdirSync(join(work, 'proj', '.puffin'), { recursive: true });
  writeFileSync(historyPath, FIXTURE);
  // A transcript beside it: the same run reads both kinds.
  writeFileSync(join(work, 'notes.json'), '{"not": "a transcript, and not named like one"}');
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '1' };
});
afterAll(() => temp?.cleanup());

describe('moon on a Puffin history', () => {
  test('index, sessions, recall, show and the projection', async () => {
    const indexed = await spawnMoon(['index', work, '--json'], env);
    expect(indexed.code, indexed.stderr).toBe(0);
    const report = JSON.parse(indexed.stdout) as { files: number; indexed: number; sessions: string[]; projections: number };
    // Discovery lists `.puffin/history.json` (and no other .json).
    expect(report).toMatchObject({ files: 1, indexed: 1, projections: 8 });
    expect(report.sessions).toHaveLength(8);

    const sessions = await spawnMoon(['sessions', '--source', 'puffin'], env);
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout).toContain('puffin-mjgemr768h20qxza1 |');
    expect(sessions.stdout).toContain('| proj | [Sprint] Three-Column Swimlane Layout - UI |');
    expect(sessions.stdout).toContain('tools: Write×2, Read×1');
    expect(sessions.stdout).toContain('8 sessions');

    const recall = await spawnMoon(['recall', 'swimlane layout', '--source', 'puffin', '--json'], env);
    expect(recall.code, recall.stderr).toBe(0);
    const result = JSON.parse(recall.stdout) as RecallResult;
    expect(result.matches[0]!.metadata).toMatchObject({ session_id: 'puffin-mjgemr768h20qxza1', source: 'puffin', project: 'proj', branch: 'UI' });
    const projection = result.matches[0]!.archive_path;
    expect(projection).toMatch(/puffin-mjgemr768h20qxza1\.md$/);
    expect(existsSync(projection)).toBe(true);
    expect(readFileSync(projection, 'utf8')).toContain('Three-Column Swimlane Layout');

    const shown = await spawnMoon(['show', 'puffin-mjgemr768h20qxza1'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('components.css');

    const unknown = await spawnMoon(['recall', 'swimlane', '--source', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('claude-code, codex, openclaw, puffin');
  });

  test('an edited prompt is re-indexed alone, on the workers too', async () => {
    const history = JSON.parse(readFileSync(historyPath, 'utf8')) as { branches: Record<string, { prompts: { id: string; content: string }[] }> };
    const prompt = history.branches.tmp!.prompts[0]!;
    prompt.content = `${prompt.content}\nAlso rename the heron-gate flag.`;
    writeFileSync(historyPath, JSON.stringify(history, null, 2));
    const indexed = await spawnMoon(['index', work, '--json'], env);
    expect(indexed.code, indexed.stderr).toBe(0);
    const report = JSON.parse(indexed.stdout) as { sessions: string[]; documents: Record<string, number> };
    expect(report.sessions).toEqual([`puffin-${prompt.id}`]);
    expect(report.documents).toMatchObject({ sessions_written: 1, sessions_unchanged: 7, parts_modified: 1 });
    const recall = JSON.parse((await spawnMoon(['recall', 'heron-gate', '--json'], env)).stdout) as RecallResult;
    expect(recall.matches.map((match) => match.metadata.session_id)).toEqual([`puffin-${prompt.id}`]);
  });
});
