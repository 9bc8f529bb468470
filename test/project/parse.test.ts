import { describe, expect, it } from 'vitest';
import { parseProjection, parseYamlValue, renderProjection } from '../../src/project/index.js';
import { MoonError } from '../../src/errors.js';
import { buildBasicDoc } from './fixture.js';

const V1 = `---
moon_archive_projection: 1
session_id: "abc123"
archive_jsonl_path: "/path/to/archive.jsonl"
content_hash: "sha256..."
created_at_epoch_secs: 1708480000
---

# Archive Projection

This file stores non-noise text signals extracted from the raw session archive for retrieval.

## Signals
- [user] how do I deploy the app
- [assistant] You can deploy using cargo run -- install
- [tool] command exited with code 0
`;

describe('parseProjection', () => {
  it('reads a v1 projection with its signals', () => {
    const parsed = parseProjection(V1);
    expect(parsed.version).toBe(1);
    expect(parsed.frontmatter).toEqual({
      moon_archive_projection: 1,
      session_id: 'abc123',
      archive_jsonl_path: '/path/to/archive.jsonl',
      content_hash: 'sha256...',
      created_at_epoch_secs: 1708480000,
    });
    expect(parsed.signals).toEqual([
      { role: 'user', text: 'how do I deploy the app' },
      { role: 'assistant', text: 'You can deploy using cargo run -- install' },
      { role: 'tool', text: 'command exited with code 0' },
    ]);
    expect(parseProjection(V1.replace(/\n/g, '\r\n')).signals).toHaveLength(3);
  });

  it('round-trips the v2 frontmatter the renderer writes', () => {
    const doc = buildBasicDoc();
    const parsed = parseProjection(renderProjection({ ...doc, session: { ...doc.session, cwd: 'C:\\x "y", [z]' } }));
    expect(parsed.version).toBe(2);
    const fm = parsed.frontmatter;
    expect(fm['session_id']).toBe('sess-0405-dst');
    expect(fm['cwd']).toBe('C:\\x "y", [z]');
    expect(fm['created_at_epoch_secs']).toBe(1775319600);
    expect(fm['time_range_utc']).toBe('2026-04-04T12:40:00Z — 2026-04-04T16:20:00Z');
    expect(fm['local_timezone']).toBe('AEDT (+11:00) — AEST (+10:00)');
    expect(fm['tool_calls']).toEqual(['Read', 'Bash', 'Edit', 'Write', 'WebSearch']);
    expect(fm['compactions']).toBe(1);
    expect(fm['projection_filtered_noise_count']).toBe(3);
    expect(Array.isArray(fm['keywords'])).toBe(true);
    expect(fm['parent_session_id']).toBeUndefined();
  });

  it('reads v2 conversations and tool transactions as signals', () => {
    const signals = parseProjection(renderProjection(buildBasicDoc())).signals ?? [];
    expect(signals[0]).toEqual({
      role: 'user',
      text: '"How do I deploy the app to Cloudflare? The build with `cargo build --release` fails | sometimes."',
    });
    expect(signals.filter((s) => s.role === 'assistant')).toHaveLength(4);
    expect(signals).toContainEqual({ role: 'tool:Bash', text: '**high** `npx wrangler deploy` → (no result)' });
    expect(signals.filter((s) => s.role.startsWith('tool:'))).toHaveLength(7);
  });

  it('throws a clear error for files without frontmatter or with an unknown version', () => {
    expect(() => parseProjection('# Just markdown\n')).toThrow(/no YAML frontmatter/);
    expect(() => parseProjection('# Just markdown\n')).toThrow(MoonError);
    expect(() => parseProjection('---\nsession_id: "x"\n')).toThrow(/not closed/);
    expect(() => parseProjection('---\nsession_id: "x"\n---\n')).toThrow(/no moon_archive_projection/);
    expect(() => parseProjection('---\nmoon_archive_projection: 3\n---\n')).toThrow(/unsupported moon_archive_projection version: 3/);
  });

  it('parses scalar and list values', () => {
    expect(parseYamlValue('null')).toBeNull();
    expect(parseYamlValue('"a\\"b"')).toBe('a"b');
    expect(parseYamlValue("'it''s'")).toBe("it's");
    expect(parseYamlValue('[]')).toEqual([]);
    expect(parseYamlValue('["a, b", "c"]')).toEqual(['a, b', 'c']);
    expect(parseYamlValue('[one, 2]')).toEqual(['one', 2]);
    expect(parseYamlValue('plain text')).toBe('plain text');
  });

  it('reads v2 frontmatter with the title and subagent fields, and without them', () => {
    const header = (extra: string): string =>
      `---\nmoon_archive_projection: 2\nsession_id: "ef958aa1:agent-aef063ba534d73153"\n${extra}archive_jsonl_path: "/a.jsonl"\n---\n\n# x\n`;
    const withFields = parseProjection(
      header('title: "Worktree experiment"\nparent_session_id: "ef958aa1"\nagent_type: "general-purpose"\nagent_description: "Round 2: bob comparison"\n'),
    );
    expect(withFields.frontmatter).toMatchObject({
      title: 'Worktree experiment',
      parent_session_id: 'ef958aa1',
      agent_type: 'general-purpose',
      agent_description: 'Round 2: bob comparison',
    });
    expect(parseProjection(header('title: null\n')).frontmatter['title']).toBeNull();
    const without = parseProjection(header(''));
    expect(without.version).toBe(2);
    expect('title' in without.frontmatter).toBe(false);
    expect('agent_type' in without.frontmatter).toBe(false);
  });
});

