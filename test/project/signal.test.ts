import { describe, expect, it } from 'vitest';
import { extractDecisions } from '../../src/normalize/decisions.js';
import { extractKeywords } from '../../src/normalize/keywords.js';
import { parseProjection, renderProjection } from '../../src/project/index.js';
import { buildBasicDoc, makeEntry, makeSession } from './fixture.js';

/** The second away_summary record of test/fixtures/claude-code/real-worktrees-session-with-subagents. */
const RECAP =
  'Three teammates (alice/bob/carol) researched plan mode, teammates, and Beads in their own worktrees, then added cross-comparison sections; both rounds are merged into master. No next action unless you want to inspect the docs or push. (disable recaps in /config)';

function sectionOf(markdown: string, title: string): string {
  const start = markdown.indexOf(`${title}\n`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('reasoning and recaps', () => {
  const doc = buildBasicDoc();
  const reasoning = makeEntry({
    line: 15,
    ts: Date.parse('2026-04-04T16:21:00Z'),
    role: 'assistant',
    kind: 'reasoning',
    text: '**Weighing the rollback** I decided to consider pinning zanzibar-cache before touching wrangler again.',
  });
  const recap = makeEntry({ line: 16, ts: Date.parse('2026-04-04T16:22:00Z'), role: 'system', kind: 'recap', text: RECAP });
  const output = renderProjection({ ...doc, entries: [...doc.entries, reasoning, recap] });

  it('keeps reasoning out of Assistant Responses and labels it in the Timeline', () => {
    expect(sectionOf(output, '### Assistant Responses')).not.toContain('Weighing the rollback');
    expect(output).toContain('| 14 | 16:21:00Z | 02:21:00 AEST | reasoning | **Weighing the rollback** I decided');
    expect(output).toContain('| 15 | 16:22:00Z | 02:22:00 AEST | recap | Three teammates (alice/bob/carol)');
  });

  it('turns recaps into outcome lines and never quotes reasoning as a decision', () => {
    const decisions = sectionOf(output, '## Decisions & Outcomes');
    expect(decisions).toContain(
      '- Recap: Three teammates (alice/bob/carol) researched plan mode, teammates, and Beads in their own worktrees, then added cross-comparison sections; both rounds are merged into master. No next action unless you want to inspect the docs or push.\n',
    );
    expect(decisions).not.toContain('disable recaps');
    expect(decisions).not.toContain('zanzibar');
    expect(extractKeywords([reasoning])).toEqual([]);
    expect(extractKeywords([recap])).toContain('teammates');
  });

  it('keeps recaps first when the list is over its cap', () => {
    const many = Array.from({ length: 30 }, (_, i) => makeEntry({ line: 100 + i, role: 'assistant', text: `Resolved issue number ${i} today.` }));
    const late = makeEntry({ line: 200, role: 'system', kind: 'recap', text: RECAP });
    const decisions = extractDecisions([...many, late]);
    expect(decisions).toHaveLength(20);
    expect(decisions.at(-1)).toMatch(/^Recap: Three teammates/);
  });
});

describe('title and subagent facts', () => {
  it('names the projection by its title and writes title: null when there is none', () => {
    const untitled = renderProjection(buildBasicDoc());
    expect(untitled).toContain('\ntitle: null\n');
    expect(untitled).toContain('\n# Archive Projection — sess-0405-dst\n');
    expect(untitled).not.toContain('agent_type');

    const doc = buildBasicDoc();
    const titled = renderProjection({ ...doc, session: { ...doc.session, title: 'Deploy moon-app to\nCloudflare Workers' } });
    expect(titled).toContain('\ntitle: "Deploy moon-app to Cloudflare Workers"\n');
    expect(titled).toContain('\n# Deploy moon-app to Cloudflare Workers — sess-0405-dst\n');
    expect(parseProjection(titled).frontmatter['title']).toBe('Deploy moon-app to Cloudflare Workers');
  });

  it('writes agent_type and agent_description for subagents only, and parses them back', () => {
    // test/fixtures/claude-code/real-worktrees-session-with-subagents/…/agent-aef063ba534d73153.meta.json
    const session = makeSession({
      id: 'ef958aa1-0e93-49f0-bb71-150f63befcd1:agent-aef063ba534d73153',
      parentSessionId: 'ef958aa1-0e93-49f0-bb71-150f63befcd1',
      agentType: 'general-purpose',
      agentDescription: 'Round 2: bob comparison',
    });
    const output = renderProjection({ ...buildBasicDoc(), session });
    expect(output).toContain(
      [
        'parent_session_id: "ef958aa1-0e93-49f0-bb71-150f63befcd1"',
        'agent_type: "general-purpose"',
        'agent_description: "Round 2: bob comparison"',
      ].join('\n'),
    );
    const fm = parseProjection(output).frontmatter;
    expect(fm['agent_type']).toBe('general-purpose');
    expect(fm['agent_description']).toBe('Round 2: bob comparison');
    expect(fm['title']).toBeNull();
  });

  it('parses v2 files written before the new fields existed', () => {
    const old = renderProjection(buildBasicDoc()).replace('title: null\n', '');
    const parsed = parseProjection(old);
    expect(parsed.version).toBe(2);
    expect(parsed.frontmatter['title']).toBeUndefined();
    expect(parsed.signals?.length).toBeGreaterThan(0);
  });
});
