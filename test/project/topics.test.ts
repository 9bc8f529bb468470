import { describe, expect, it } from 'vitest';
import { extractKeywords } from '../../src/normalize/keywords.js';
import { inferTopics, MAX_TOPICS } from '../../src/normalize/topics.js';
import { buildBasicDoc, makeEntry } from './fixture.js';

describe('inferTopics', () => {
  it('maps keyword clusters to lexicon labels, best first', () => {
    const doc = buildBasicDoc();
    const topics = inferTopics(doc.entries, extractKeywords(doc.entries));
    expect(topics.length).toBeGreaterThanOrEqual(2);
    expect(topics.length).toBeLessThanOrEqual(MAX_TOPICS);
    expect(topics).toContain('deployment');
    expect(topics).toContain('build configuration');
  });

  it('recognizes testing, database, version control and authentication', () => {
    expect(inferTopics([], ['vitest', 'fixtures', 'sqlite', 'migrations'])).toEqual(['testing', 'database']);
    expect(inferTopics([], ['git commit', 'oauth', 'rebase', 'login'])).toEqual(['version control', 'authentication']);
    expect(inferTopics([], ['vitest.config.ts', 'better-sqlite3'])).toEqual(['testing', 'database']);
  });

  it('omits topics rather than pairing keywords when no lexicon cluster matches', () => {
    const entries = [
      makeEntry({ line: 1, role: 'user', text: 'The pelican feeds the walrus' }),
      makeEntry({ line: 2, role: 'assistant', text: 'pelican and walrus again, then zebra' }),
    ];
    const keywords = extractKeywords(entries);
    expect(inferTopics(entries, keywords)).toEqual([]);
    expect(inferTopics(entries, ['vitest', ...keywords])).toEqual(['testing']);
    // Keyword lists of real fixtures whose old topics were pair noise (`git / log`, `len / sha`, `text / ipsum`).
    const worktrees = 'git,git log,SendMessage,log,master,round,merge,round-2,teammates,branch,comparison,branches,worktree,agents,agent';
    expect(inferTopics([], worktrees.split(','))).toEqual(['version control', 'agent orchestration']);
    expect(inferTopics([], ['input', 'line', 'malformed', 'safe'])).toEqual([]);
    expect(inferTopics([], ['SKILL.md', 'review'])).toEqual([]);
    for (const topic of inferTopics([], ['text', 'command-contents', 'complex_example.py', 'test.log', 'code', 'markdown'])) {
      expect(topic).not.toContain(' / ');
    }
  });

  it('needs a cluster: one matching keyword counts only when it ranks in the top five', () => {
    const filler = ['pelican', 'walrus', 'zebra', 'heron', 'otter'];
    expect(inferTopics([], ['vitest', ...filler])).toEqual(['testing']);
    expect(inferTopics([], [...filler, 'vitest'])).toEqual([]);
    expect(inferTopics([], [...filler, 'vitest', 'fixtures'])).toEqual(['testing']);
  });

  it('caps at five labels and is deterministic', () => {
    const keywords = ['deploy', 'vitest', 'sqlite', 'git', 'oauth', 'debug', 'readme', 'npm', 'refactor', 'css'];
    const topics = inferTopics([], keywords);
    expect(topics).toHaveLength(5);
    expect(inferTopics([], keywords)).toEqual(topics);
    expect(inferTopics([], [])).toEqual([]);
  });
});
