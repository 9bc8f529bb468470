import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMoon } from '../../src/moon.js';
import { REPO, makeTempDir } from '../helpers/cli.js';

/**
 * Golden projections: every shared fixture transcript, snapshotted with a fixed residential zone, must render
 * byte-for-byte the reviewed markdown in test/fixtures/golden/projections/. `UPDATE_GOLDEN=1` rewrites them.
 */
const FIXTURES = join(REPO, 'test', 'fixtures');
const GOLDEN = join(FIXTURES, 'golden', 'projections');
const update = process.env.UPDATE_GOLDEN === '1';

function listTranscripts(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'golden') found.push(...listTranscripts(path));
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push(path);
  }
  return found.sort();
}

const temp = makeTempDir('moon-golden-');
afterAll(() => temp.cleanup());

describe('golden v2 projections of the shared fixtures', () => {
  const transcripts = listTranscripts(FIXTURES);
  test('there are fixtures for every format', () => {
    const formats = new Set(transcripts.map((path) => relative(FIXTURES, path).split('/')[0]));
    expect([...formats].sort()).toEqual(['claude-code', 'codex', 'pi']);
  });

  for (const transcript of transcripts) {
    const name = relative(FIXTURES, transcript).replace(/\//g, '__').replace(/\.jsonl$/, '.md');
    test(name, async () => {
      const home = join(temp.path, basename(name, '.md'));
      const moon = createMoon(loadConfig({ env: { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'Australia/Sydney' } }));
      const report = await moon.history.snapshot({ roots: [transcript] });
      await moon.close();
      if (report.archived.length === 0) {
        // fork sessions are excluded whole; that is their golden behaviour
        expect(report.excluded.map((item) => item.reason)).toEqual(['fork session (first record is a queue-operation)']);
        return;
      }
      expect(report.errors).toEqual([]);
      const rendered = readFileSync(report.archived[0]!.projectionPath, 'utf8').replaceAll(home, '$MOON_HOME');
      const goldenPath = join(GOLDEN, name);
      if (update || !existsSync(goldenPath)) {
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(goldenPath, rendered);
        if (!update) throw new Error(`golden file was missing and has been written: ${goldenPath}; review it and re-run`);
      }
      expect(rendered).toBe(readFileSync(goldenPath, 'utf8'));
    });
  }
});
