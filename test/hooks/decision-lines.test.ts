import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DECISION_THRESHOLD, classifyDecisionLine } from '../../src/text/decision-line.js';

/**
 * The handover labels a line "Decision:" only when it is one. test/hooks/fixtures/decision-lines.jsonl holds every
 * candidate line (the `## Decisions & Outcomes` items, edits aside) of the projections of the real transcript
 * fixtures (../shared/fixtures: Claude Code, Codex, Puffin, pi) and of the bundled examples, each labelled by reading
 * it: decision (something chosen) or not (a request, a command and its output, an outcome, a report, a question).
 */
interface Labelled {
  line: string;
  origin: string;
  decision: boolean;
}

const rows = readFileSync(join(import.meta.dirname, 'fixtures/decision-lines.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Labelled);

describe('decision lines', () => {
  test('the labelled set is large enough and holds both kinds', () => {
    expect(rows.length).toBeGreaterThanOrEqual(80);
    expect(rows.filter((row) => row.decision).length).toBeGreaterThanOrEqual(15);
    expect(new Set(rows.map((row) => row.origin)).size).toBeGreaterThanOrEqual(3);
  });

  test(`precision ≥ 0.9 at the threshold (${DECISION_THRESHOLD}); recall reported`, () => {
    const said = rows.filter((row) => classifyDecisionLine(row.line).decision);
    const right = said.filter((row) => row.decision);
    const precision = right.length / said.length;
    const recall = right.length / rows.filter((row) => row.decision).length;
    console.info(`decision lines: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (${said.length} said, ${rows.length} labelled)`);
    expect(said.length).toBeGreaterThan(0);
    expect(precision, said.filter((row) => !row.decision).map((row) => row.line).join('\n')).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.5);
  });

  test('requests, commands with their output, outcomes, questions and reports are never decisions', () => {
    for (const line of [
      "Let's get the shop deployed to Cloudflare Workers tonight with wrangler.",
      '`npx wrangler deploy` → ⛅️ wrangler 3.109.2',
      'Done: the release job now deploys.',
      'Fixed the flaky test.',
      'Should we use Postgres instead of MySQL?',
      'Result: ✅ all green',
      'Can you switch the cache to Redis instead of memcached',
    ]) {
      expect(classifyDecisionLine(line).decision, line).toBe(false);
    }
  });

  test('a label is taken off once, however often it was written', () => {
    const verdict = classifyDecisionLine('[18:36:02Z] Decision: Decision: keys are wrangler secrets, never in wrangler.toml');
    expect(verdict.text).toBe('keys are wrangler secrets, never in wrangler.toml');
    expect(verdict.decision).toBe(true);
  });
});
