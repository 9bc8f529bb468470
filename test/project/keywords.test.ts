import { describe, expect, it } from 'vitest';
import { classifyToken, extractKeywords, MAX_KEYWORDS } from '../../src/normalize/keywords.js';
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
});
