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

  it('falls back to co-occurring keyword pairs when the lexicon finds fewer than two labels', () => {
    const entries = [
      makeEntry({ line: 1, role: 'user', text: 'The pelican feeds the walrus' }),
      makeEntry({ line: 2, role: 'assistant', text: 'pelican and walrus again, then zebra' }),
    ];
    const keywords = extractKeywords(entries);
    expect(inferTopics(entries, keywords)).toEqual(['pelican / walrus', 'pelican / feeds']);
    expect(inferTopics(entries, ['vitest', ...keywords])).toEqual(['testing', 'pelican / walrus']);
  });

  it('caps at five labels and is deterministic', () => {
    const keywords = ['deploy', 'vitest', 'sqlite', 'git', 'oauth', 'debug', 'readme', 'npm', 'refactor', 'css'];
    const topics = inferTopics([], keywords);
    expect(topics).toHaveLength(5);
    expect(inferTopics([], keywords)).toEqual(topics);
    expect(inferTopics([], [])).toEqual([]);
  });
});
