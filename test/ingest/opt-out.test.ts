import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileGlob, createOptOut } from '../../src/ingest/opt-out.js';
import type { RecallResult } from '../../src/model.js';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

describe('compileGlob', () => {
  test('** spans folders, * and ? stay within one, a bare name matches a folder anywhere', () => {
    expect(compileGlob('/home/*/clients/**').test('/home/ann/clients/acme/src')).toBe(true);
    expect(compileGlob('/home/*/clients/**').test('/home/ann/x/clients/acme')).toBe(false);
    expect(compileGlob('**/secret-?/**').test('/a/b/secret-1/c')).toBe(true);
    expect(compileGlob('secret-client').test('/home/ann/secret-client/app')).toBe(true);
    expect(compileGlob('secret-client').test('/home/ann/secret-client-two/app')).toBe(false);
    expect(compileGlob('a.b(c)').test('/x/a.b(c)/y')).toBe(true);
    expect(compileGlob('a.b(c)').test('/x/aXb(c)/y')).toBe(false);
  });

  test('a .moonignore in the cwd or a folder above it opts the session out', () => {
    const temp = makeTempDir('moon-optout-');
    try {
      mkdirSync(join(temp.path, 'repo', 'packages', 'web'), { recursive: true });
      writeFileSync(join(temp.path, 'repo', '.moonignore'), '');
      const optOut = createOptOut([]);
      expect(optOut.checkCwd(join(temp.path, 'repo', 'packages', 'web'))).toMatch(/opted out by .*repo\/\.moonignore/);
      expect(optOut.checkCwd(temp.path)).toBeNull();
      expect(optOut.checkCwd(null)).toBeNull();
    } finally {
      temp.cleanup();
    }
  });
});

test('opted-out projects are never indexed, whichever way they are named; the rest is', async () => {
  const temp = makeTempDir('moon-optout-cli-');
  try {
    const home = join(temp.path, 'home');
    const corpus = join(temp.path, 'corpus');
    const ignored = join(temp.path, 'work', 'private-repo');
    mkdirSync(join(ignored, 'sub'), { recursive: true });
    writeFileSync(join(ignored, '.moonignore'), '# keep this project out of moon\n');
    mkdirSync(corpus);
    mkdirSync(home);
    writeFileSync(join(home, 'moon.toml'), '[sources]\nexclude = ["**/client-acme/**"]\n');
    const session = (id: string, cwd: string, text: string) =>
      claudeSession({ sessionId: id, cwd, turns: [{ role: 'user', at: '2026-01-05T10:00:00Z', id: `${id}-1`, text }] });
    writeFileSync(join(corpus, 'private.jsonl'), session('private', join(ignored, 'sub'), 'the walrus migration in the private repo'));
    writeFileSync(join(corpus, 'acme.jsonl'), session('acme', '/home/dev/client-acme/api', 'the walrus invoice for acme'));
    writeFileSync(join(corpus, 'open.jsonl'), session('open', '/home/dev/blog', 'the walrus theme for the blog'));
    const run = await runMoon(['index', corpus, '--json'], { MOON_HOME: home });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { excluded_files: { path: string; reason: string }[] };
    expect(report.excluded_files.map((item) => item.reason).sort()).toEqual([
      'excluded by sources.exclude "**/client-acme/**"',
      expect.stringMatching(/^opted out by .*private-repo\/\.moonignore$/),
    ]);
    const recall = JSON.parse((await runMoon(['recall', 'walrus', '--json'], { MOON_HOME: home })).stdout) as RecallResult;
    expect(recall.matches.map((match) => match.metadata.session_id)).toEqual(['open']);
  } finally {
    temp.cleanup();
  }
});
