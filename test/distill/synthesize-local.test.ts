import { describe, expect, test } from 'vitest';
import { checkMemoryText } from '../../src/distill/memory-file.js';
import { synthesizeLocally } from '../../src/distill/synthesize-local.js';

function block(id: string, turns: [string, string][]): string {
  return [
    `<!-- MOON_SESSION_BEGIN:${id} -->`,
    `## Work on ${id}`,
    '',
    `- Session: \`${id}\` (codex, project api, branch main)`,
    '- **Outcome:** shipped',
    '',
    '### Conversation',
    '',
    ...turns.map(([role, text]) => `- 10:00:00 AEDT **${role}**: ${text}`),
    `<!-- MOON_SESSION_END:${id} -->`,
  ].join('\n');
}

describe('local L2 synthesis', () => {
  test('preferences from the user, causes from the assistant, decisions and context, each with provenance', () => {
    const text = block('aaaaaaaa-1', [
      ['user', 'Please use pnpm, not npm, in this repo. Fix the build.'],
      ['assistant', 'The build failed because the lockfile was stale. We will switch to pnpm workspaces.'],
      ['user', 'Never push to main directly.'],
    ]);
    const out = synthesizeLocally([{ path: '/m/memory/2026-03-02.md', text }], null);
    const checked = checkMemoryText(out);
    if (!checked.ok) throw new Error(checked.reason);
    expect(checked.sections['User Preferences']).toEqual([
      '- "Please use pnpm, not npm, in this repo." (2026-03-02, session aaaaaaaa)',
      '- "Never push to main directly." (2026-03-02, session aaaaaaaa)',
    ]);
    expect(checked.sections['Lessons Learned']).toEqual(['- The build failed because the lockfile was stale. (2026-03-02, session aaaaaaaa)']);
    expect(checked.sections['Durable Decisions & Context']).toEqual([
      '- We will switch to pnpm workspaces. (2026-03-02, session aaaaaaaa)',
      '- api: Work on aaaaaaaa-1 — shipped (2026-03-02, session aaaaaaaa)',
    ]);
  });

  test('merges into the current file newest first, says a thing once, and stays within 240 lines', () => {
    const current = { 'Lessons Learned': ['- old lesson (2026-01-01, session 1)'], 'User Preferences': ['- "Never push to main directly." (2026-01-01, session 0)'], 'Durable Decisions & Context': Array.from({ length: 300 }, (_, i) => `- context ${i} (2026-01-01, session x)`) };
    const out = synthesizeLocally([{ path: '/m/memory/2026-03-02.md', text: block('bbbbbbbb', [['user', 'Never push to main directly.']]) }], current);
    const checked = checkMemoryText(out);
    if (!checked.ok) throw new Error(checked.reason);
    expect(out.split('\n').length - 1).toBeLessThanOrEqual(240);
    // The same words with newer provenance are one item, the newer one.
    expect(checked.sections['User Preferences']).toEqual(['- "Never push to main directly." (2026-03-02, session bbbbbbbb)']);
    expect(checked.sections['Lessons Learned']).toEqual(['- old lesson (2026-01-01, session 1)']);
    // The longest section lost its oldest items; the new context line is first.
    expect(checked.sections['Durable Decisions & Context'][0]).toMatch(/^- api: Work on bbbbbbbb/);
    expect(checked.sections['Durable Decisions & Context'].at(-1)).not.toBe('- context 299 (2026-01-01, session x)');
  });
});
