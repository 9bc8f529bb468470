import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMemoryApi } from '../../src/memory/api.js';
import { claudeProjectFolder, findAgentMemoryFiles, splitMemoryFile } from '../../src/memory/import-agents.js';
import type { StoreEngine } from '../../src/store/ports.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';

describe('splitMemoryFile', () => {
  test('bullets and paragraphs; headings, code, front matter, comments, tables, rules and tiny items left out', () => {
    const text = [
      '---',
      'name: testing',
      'description: how we test',
      '---',
      '# Title',
      '<!-- a note to self -->',
      '- first bullet item here',
      '  continued on the next line',
      '* [x] a checked task item',
      '1. numbered step one here',
      '- ok',
      '',
      '| a | b |',
      '|---|---|',
      '---',
      'A paragraph that',
      'spans two lines.',
      '```',
      '- not a bullet, code',
      '```',
    ].join('\n');
    expect(splitMemoryFile(text)).toEqual([
      'first bullet item here continued on the next line',
      'a checked task item',
      'numbered step one here',
      'A paragraph that spans two lines.',
    ]);
  });
});

describe('agent memory files and the library API', () => {
  let dir: string;
  let engine: StoreEngine;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moon-ltm-import-'));
    engine = openSqliteEngine(join(dir, 'moon.db'));
  });
  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('finds CLAUDE.md, AGENTS.md, Claude Code auto-memory and Codex memories of the project; imports them into its namespace', async () => {
    const home = join(dir, 'home');
    const repo = join(dir, 'work', 'shop.app');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'CLAUDE.md'), '# Shop\n\n- Use pnpm for every install, never npm\n');
    writeFileSync(join(repo, 'AGENTS.md'), '- Use pnpm for every install, never npm\n- Keep PRs under 400 lines\n');
    expect(claudeProjectFolder(repo)).toBe(repo.replace(/[^A-Za-z0-9]/g, '-'));
    expect(claudeProjectFolder('/home/me/shop.app')).toBe('-home-me-shop-app');
    const autoMemory = join(home, '.claude', 'projects', claudeProjectFolder(repo), 'memory');
    mkdirSync(autoMemory, { recursive: true });
    writeFileSync(join(autoMemory, 'MEMORY.md'), '- [Testing](testing.md): the date tests need TZ=UTC\n');
    writeFileSync(join(autoMemory, 'testing.md'), '---\nname: testing\n---\nThe date tests fail unless TZ=UTC is set.\n');
    const codexHome = join(dir, 'codex');
    mkdirSync(join(codexHome, 'memories'), { recursive: true });
    writeFileSync(join(codexHome, 'memories', 'prefs.md'), '* Prefer small commits with honest messages\n');
    const env = { HOME: home, CODEX_HOME: codexHome };

    const files = findAgentMemoryFiles(repo, ['claude-code', 'codex'], env);
    expect(files.map((file) => [file.path, file.agent, file.scope])).toEqual([
      [join(repo, 'CLAUDE.md'), 'claude-code', 'project'],
      [join(autoMemory, 'MEMORY.md'), 'claude-code', 'project'],
      [join(autoMemory, 'testing.md'), 'claude-code', 'project'],
      [join(repo, 'AGENTS.md'), 'codex', 'project'],
      [join(codexHome, 'memories', 'prefs.md'), 'codex', 'user'],
    ]);
    expect(findAgentMemoryFiles(repo, ['codex'], env).map((file) => file.agent)).toEqual(['codex', 'codex']);

    const api = createMemoryApi({ engine: async () => engine, clock: () => 1_000, env });
    const report = await api.import({ cwd: join(repo, 'src') });
    expect(report.namespace_id).toBe(`path:${repo}`);
    expect(report.files.map((file) => [file.entries, file.created, file.merged])).toEqual([
      [1, 1, 0],
      [1, 1, 0],
      [1, 1, 0],
      [2, 1, 1],
      [1, 1, 0],
    ]);
    const pnpm = await api.search({ cwd: repo, query: 'pnpm' });
    expect(pnpm).toHaveLength(1);
    expect(pnpm[0]!.provenance.map((item) => item.source)).toEqual([`import:${join(repo, 'CLAUDE.md')}`, `import:${join(repo, 'AGENTS.md')}`]);
    expect((await api.list({ cwd: repo })).every((memory) => memory.agent_loaded)).toBe(true);
    const second = await api.import({ cwd: repo });
    expect(second.files.every((file) => file.created === 0 && file.merged === 0)).toBe(true);
    // another project's working directory sees none of the project's files — only the user-wide Codex memory
    const elsewhere = join(dir, 'work', 'blog');
    mkdirSync(join(elsewhere, '.git'), { recursive: true });
    expect((await api.list({ cwd: elsewhere })).map((memory) => [memory.scope, memory.text])).toEqual([['user', 'Prefer small commits with honest messages']]);
    expect(await api.search({ cwd: elsewhere, query: 'pnpm' })).toEqual([]);
  });
});
