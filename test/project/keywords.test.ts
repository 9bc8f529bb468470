import { describe, expect, it } from 'vitest';
import { classifyToken, extractKeywords, listSessionTerms, MAX_KEYWORDS, MAX_SESSION_TERMS, rankSessionTerms, type TermCorpus } from '../../src/normalize/keywords.js';
import { listFixtureCommits } from '../helpers/prepared.js';
import { mergeEntriesByKey } from '../../src/ingest/project-session.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBasicDoc, makeEntry } from './fixture.js';

describe('extractKeywords', () => {
  it('keeps paths, commands, packages and identifiers intact', () => {
    const entries = [
      makeEntry({ line: 1, role: 'user', text: 'Please fix src/app.ts and check wrangler.toml plus the .env file.' }),
      makeEntry({ line: 2, role: 'assistant', text: 'Run `cargo build` then `npm install better-sqlite3 @scope/pkg`; extractKeywords reads MOON_HOME and snake_case_name.' }),
      makeEntry({ line: 3, role: 'tool', toolName: 'Bash', toolTarget: 'git commit -m "wip"', text: 'git commit -m "wip"', priority: 'high' }),
      makeEntry({ line: 4, role: 'tool', toolName: 'Read', toolTarget: '/Users/me/proj/src/project/render.ts', text: 'Read', priority: 'normal' }),
    ];
    const keywords = extractKeywords(entries);
    for (const term of ['src/app.ts', 'wrangler.toml', '.env', 'cargo build', 'cargo', 'npm install', 'better-sqlite3', '@scope/pkg', 'extractKeywords', 'MOON_HOME', 'snake_case_name', 'git commit', 'src/project/render.ts']) {
      expect(keywords).toContain(term);
    }
  });

  it('drops stopwords, filler, markdown noise, numbers, hashes, flags and URLs', () => {
    const entries = [
      makeEntry({ line: 1, role: 'user', text: 'Okay so basically I think we should just, like, maybe look at this thing? Thanks!' }),
      makeEntry({ line: 2, role: 'assistant', text: '```bash\n**Sure** — see https://example.com/docs 42 v1.2.3 deadbeef1234 --release e.g. ### Heading\n```' }),
    ];
    const keywords = extractKeywords(entries);
    for (const noise of ['okay', 'basically', 'think', 'just', 'like', 'maybe', 'thing', 'thanks', 'sure', 'bash', 'https', 'example.com', '42', 'v1.2.3', 'deadbeef1234', '--release', 'release', 'e.g', 'the']) {
      expect(keywords).not.toContain(noise);
    }
    expect(keywords).toContain('heading');
  });

  it('ranks technical and repeated terms first, ties alphabetically, and caps at 30', () => {
    const words = Array.from({ length: 60 }, (_, i) => `topic${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const entries = [
      makeEntry({ line: 1, role: 'user', text: words.join(' ') }),
      makeEntry({ line: 2, role: 'assistant', text: 'database database in src/db.ts' }),
      makeEntry({ line: 3, role: 'user', text: 'database again' }),
    ];
    const keywords = extractKeywords(entries);
    expect(keywords).toHaveLength(MAX_KEYWORDS);
    // A path mentioned once outranks a plain word said three times: technical terms weigh more.
    expect(keywords.slice(0, 2)).toEqual(['src/db.ts', 'database']);
    const rest = keywords.slice(3);
    expect(rest).toEqual([...rest].sort());
    expect(extractKeywords(entries, 5)).toHaveLength(5);
    expect(extractKeywords(entries, 100)).toHaveLength(MAX_KEYWORDS);
  });

  it('is deterministic regardless of input order', () => {
    const doc = buildBasicDoc();
    const sorted = extractKeywords(doc.entries);
    expect(extractKeywords([...doc.entries].reverse())).toEqual(sorted);
    expect(sorted.slice(0, 4)).toEqual(['.env', 'cargo', 'cargo build', 'wrangler']);
  });

  it('classifies tokens', () => {
    expect(classifyToken('Cargo.toml')).toEqual({ term: 'Cargo.toml', kind: 'path' });
    expect(classifyToken('/Users/me/proj/Cargo.toml')).toEqual({ term: 'Cargo.toml', kind: 'path' });
    expect(classifyToken('Dockerfile')).toEqual({ term: 'Dockerfile', kind: 'path' });
    expect(classifyToken('npm')).toEqual({ term: 'npm', kind: 'command' });
    expect(classifyToken('useEffect')).toEqual({ term: 'useEffect', kind: 'identifier' });
    expect(classifyToken('config.patch')).toEqual({ term: 'config.patch', kind: 'identifier' });
    expect(classifyToken('Cloudflare')).toEqual({ term: 'cloudflare', kind: 'word' });
    expect(classifyToken('built-in')).toBeNull();
    expect(classifyToken('2026-02-21')).toBeNull();
    expect(classifyToken('--force')).toBeNull();
  });

  it('drops number words, lone shell verbs, device paths, placeholders, lorem ipsum, bare extensions and filler', () => {
    const entries = [
      // Prose and commands as in test/fixtures/claude-code/real-worktrees-session-with-subagents.
      makeEntry({ line: 1, role: 'user', text: 'Pretend we have a list of tasks; first, second and third go to three teammates, twice.' }),
      makeEntry({ line: 2, role: 'tool', toolName: 'Bash', toolTarget: 'for d in .claude/worktrees/agent-*; do echo "=== $d ==="; git -C "$d" log --oneline -3 2>/dev/null; done', text: 'x' }),
      makeEntry({ line: 3, role: 'tool', toolName: 'Bash', toolTarget: 'git branch -a && echo "---" && ls work/ && cat notes.md | grep TODO | head -5', text: 'x' }),
      // Scrubbed Codex fixtures and moon's own redaction.
      makeEntry({ line: 4, role: 'assistant', text: '[REDACTED_TEXT len=120 sha=3b255c34] then [REDACTED:github-token] and [REDACTED_OUTPUT len=136 sha=b8890189]' }),
      makeEntry({ line: 5, role: 'assistant', text: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, quia voluptatem. Every .md and .ts file; foo bar baz, abc, xyz, aaa, a b c. Stamp 2025-06-14T11:02:00Z.' }),
    ];
    const keywords = extractKeywords(entries);
    for (const noise of ['first', 'second', 'third', 'three', 'twice', 'echo', 'ls', 'cat', 'grep', 'head', 'dev/null', 'len', 'sha', 'REDACTED_TEXT', 'REDACTED_OUTPUT', 'redacted', 'github-token', 'lorem', 'ipsum', 'dolor', 'sit', 'amet', 'quia', 'voluptatem', '.md', '.ts', 'foo', 'bar', 'baz', 'abc', 'xyz', 'aaa', 'a', 'b', 'c', '2025-06-14t11']) {
      expect(keywords).not.toContain(noise);
    }
    for (const term of ['git', 'git branch', 'teammates', 'notes.md', '.claude/worktrees/agent', 'tasks']) {
      expect(keywords).toContain(term);
    }
    expect(classifyToken('.env')).toEqual({ term: '.env', kind: 'path' });
    expect(classifyToken('.gitignore')).toEqual({ term: '.gitignore', kind: 'path' });
    expect(classifyToken('.md')).toBeNull();
  });

  it('ranks by distinctiveness against a corpus, and by the session alone without one', () => {
    const entries = [
      makeEntry({ line: 1, role: 'user', text: 'Run the tests in the test folder, then run the tests again; zanzibar fails.' }),
      makeEntry({ line: 2, role: 'assistant', text: 'The tests fail because zanzibar needs a token.' }),
      makeEntry({ line: 3, role: 'user', text: 'tests tests tests' }),
    ];
    const alone = extractKeywords(entries);
    expect(alone[0]).toBe('tests');
    // 1000 sessions: nearly all say "tests", only this one says "zanzibar".
    const corpus: TermCorpus = { sessionCount: 1000, countSessionsWith: (term) => (term === 'zanzibar' ? 1 : 990) };
    const ranked = extractKeywords(entries, MAX_KEYWORDS, corpus);
    expect(ranked[0]).toBe('zanzibar');
    expect([...ranked].sort()).toEqual([...alone].sort());
    // A corpus of one session (or none) changes nothing; counts out of range are clamped.
    expect(extractKeywords(entries, MAX_KEYWORDS, { sessionCount: 1, countSessionsWith: () => 1 })).toEqual(alone);
    expect(extractKeywords(entries, MAX_KEYWORDS, { sessionCount: 5, countSessionsWith: () => 99 })).toEqual(alone);
  });

  it('lists a session\'s candidate terms best first, bounded, for the index', () => {
    const doc = buildBasicDoc();
    const terms = listSessionTerms(doc.entries);
    expect(terms.slice(0, 4)).toEqual(['.env', 'cargo', 'cargo build', 'wrangler']);
    expect(new Set(terms).size).toBe(terms.length);
    expect(terms.length).toBeGreaterThan(MAX_KEYWORDS);
    expect(terms.length).toBeLessThanOrEqual(MAX_SESSION_TERMS);
    expect(listSessionTerms(doc.entries, 3)).toEqual(['.env', 'cargo', 'cargo build']);
    expect(listSessionTerms([...doc.entries].reverse())).toEqual(terms);
    expect(extractKeywords(doc.entries)).toEqual(terms.slice(0, MAX_KEYWORDS));
  });

  it('chooses the same keywords from a ranking computed once (rankSessionTerms) as from the entries, on every fixture', () => {
    const home = mkdtempSync(join(tmpdir(), 'moon-ranked-'));
    try {
      const sessions = listFixtureCommits(home, false).map(([commit]) => mergeEntriesByKey(commit!.entries));
      expect(sessions.length).toBeGreaterThan(10);
      // A corpus where every other term is common and a few are rare, so the corpus re-ranking moves terms.
      const corpus: TermCorpus = { sessionCount: 50, countSessionsWith: (term) => (term.length % 3 === 0 ? 1 : 40) };
      for (const entries of sessions) {
        const ranked = rankSessionTerms(entries);
        expect(ranked.map((item) => item.term)).toEqual(listSessionTerms(entries));
        expect(extractKeywords(entries, MAX_KEYWORDS, undefined, ranked)).toEqual(extractKeywords(entries));
        expect(extractKeywords(entries, MAX_KEYWORDS, corpus, ranked)).toEqual(extractKeywords(entries, MAX_KEYWORDS, corpus));
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

