import { describe, expect, test } from 'vitest';
import { buildDecisionRecords, selectDecisions } from '../../src/fixes/decisions.js';
import { extractFixEvents } from '../../src/fixes/extract.js';
import type { FixEvent } from '../../src/records/fixes.js';
import type { Entry } from '../../src/model.js';

let ts = 0;
function fact(sessionId: string, kind: FixEvent['kind'], fields: Partial<FixEvent> = {}): FixEvent {
  ts += 1;
  return { sessionId, namespace: 'ns-a', repo: null, seq: ts, ts, kind, signature: null, target: null, messageId: `${sessionId}-${ts}`, files: [], fileHashes: {}, commits: [], text: null, ...fields };
}

describe('decisions followed to their outcome', () => {
  test('a decision whose change is committed in its session is verified by the commit landing', () => {
    const [decision] = buildDecisionRecords(
      [
        fact('s1', 'decision', { text: "Let's keep SQLite in WAL mode instead of the rollback journal." }),
        fact('s1', 'edit', { files: ['/w/db.ts'], fileHashes: { '/w/db.ts': 'h1' } }),
        fact('s1', 'commit', { commits: ['abc1234'] }),
      ],
      () => 'h1',
    );
    expect(decision).toMatchObject({ state: 'verified', files: ['/w/db.ts'], commits: ['abc1234'], verified_by: { session_id: 's1', how: 'commit_landed' } });
    expect(decision!.run_ref!.message_ids).toHaveLength(2);
  });

  test('a test run passing after the change verifies it; a commit with no change after the decision does not', () => {
    const records = buildDecisionRecords(
      [
        fact('s1', 'decision', { text: 'We decided to switch to pnpm workspaces.' }),
        fact('s1', 'commit', { commits: ['aaaaaaa1'] }),
        fact('s1', 'pass', { target: 'ls -la' }),
        fact('s2', 'decision', { text: 'Going with zod for the config schema.' }),
        fact('s2', 'edit', { files: ['/w/config.ts'], fileHashes: { '/w/config.ts': 'c1' } }),
        fact('s2', 'pass', { target: 'npx vitest run test/config.test.ts' }),
      ],
      () => 'c1',
    );
    expect(records.map((record) => [record.session_id, record.state, record.verified_by?.how ?? null])).toEqual([
      ['s1', 'claimed', null],
      ['s2', 'verified', 'passing_run'],
    ]);
  });

  test('a check that failed earlier in the session passing after the change verifies it; an unrelated command does not', () => {
    const records = buildDecisionRecords(
      [
        fact('s1', 'error', { signature: 'error TS2339', target: 'npm run build' }),
        fact('s1', 'decision', { text: 'Decision: declare the secret in env.d.ts instead of wrangler.toml.' }),
        fact('s1', 'edit', { files: ['/w/env.d.ts'], fileHashes: { '/w/env.d.ts': 'e1' } }),
        fact('s1', 'pass', { target: 'git status' }),
        fact('s1', 'pass', { target: 'npm run build' }),
      ],
      () => 'e1',
    );
    expect(records[0]).toMatchObject({ state: 'verified', verified_by: { how: 'passing_run', message_id: records[0]!.verified_by!.message_id } });
    expect(records[0]!.verified_by!.message_id).toBe(`s1-${ts}`);
  });

  test('a decision naming a commit is verified when that commit is shown landed in a later session', () => {
    const [decision] = buildDecisionRecords(
      [fact('s1', 'decision', { text: 'Decision: cherry-pick 9f8e7d6c onto the release branch.', commits: ['9f8e7d6c'] }), fact('s2', 'commit', { commits: ['9f8e7d6c5b4a'] })],
      () => null,
    );
    expect(decision).toMatchObject({ state: 'verified', verified_by: { session_id: 's2', how: 'commit_landed' } });
  });

  test('stale when its commit is reverted later, or a file of its change differs on disk now', () => {
    const records = buildDecisionRecords(
      [
        fact('s1', 'decision', { text: 'We will use the v2 payments API from now on.' }),
        fact('s1', 'edit', { files: ['/w/pay.ts'], fileHashes: { '/w/pay.ts': 'p1' } }),
        fact('s1', 'commit', { commits: ['bbbbbbb1'] }),
        fact('s2', 'decision', { text: 'Decided to cache the catalogue in memory.' }),
        fact('s2', 'edit', { files: ['/w/catalogue.ts'], fileHashes: { '/w/catalogue.ts': 'k1' } }),
        fact('s3', 'revert', { commits: ['bbbbbbb1'] }),
      ],
      (path) => (path === '/w/catalogue.ts' ? 'k2' : 'p1'),
    );
    expect(records.map((record) => [record.state, record.stale_reason])).toEqual([
      ['stale', 'commit bbbbbbb1 reverted in session s3'],
      ['stale', '/w/catalogue.ts changed since'],
    ]);
  });

  test('edits after a later decision belong to the later one', () => {
    const records = buildDecisionRecords(
      [
        fact('s1', 'decision', { text: 'Decided to keep the old router.' }),
        fact('s1', 'decision', { text: 'Switched to the new logger instead of console.' }),
        fact('s1', 'edit', { files: ['/w/log.ts'], fileHashes: { '/w/log.ts': 'l1' } }),
        fact('s1', 'commit', { commits: ['ccccccc1'] }),
      ],
      () => 'l1',
    );
    expect(records.map((record) => [record.state, record.files])).toEqual([
      ['claimed', []],
      ['verified', ['/w/log.ts']],
    ]);
  });

  test('selectDecisions: every query word, verified first', () => {
    const records = buildDecisionRecords(
      [
        fact('s1', 'decision', { text: 'Decided to deploy with wrangler.' }),
        fact('s2', 'decision', { text: 'Going with wrangler deploy from CI.' }),
        fact('s2', 'edit', { files: ['/w/ci.yml'], fileHashes: { '/w/ci.yml': 'y' } }),
        fact('s2', 'commit', { commits: ['ddddddd1'] }),
        fact('s3', 'decision', { text: 'Decided to use Postgres.' }),
      ],
      () => 'y',
    );
    expect(selectDecisions(records, 'WRANGLER deploy').map((record) => record.session_id)).toEqual(['s2', 's1']);
  });
});

test('extractFixEvents records stated choices, not outcomes, from user and assistant messages', () => {
  const entry = (id: string, role: Entry['role'], text: string, seq: number): Entry => ({ id, role, text, seq, ts: seq * 1000, kind: 'message', toolName: null } as unknown as Entry);
  const events = extractFixEvents(
    's1',
    '/w',
    { namespace_id: 'ns', repo: null, root: '/w' },
    [
      entry('m1', 'user', "Let's use pnpm instead of npm for this repo.", 1),
      entry('m2', 'assistant', 'All tests pass now. The deploy shipped.', 2),
      entry('m3', 'assistant', 'I opted for a queue table over cron, see 1f2e3d4c.', 3),
    ],
    () => null,
  );
  const decisions = events.filter((event) => event.kind === 'decision');
  expect(decisions.map((event) => [event.messageId, event.text, event.commits])).toEqual([
    ['m1', "Let's use pnpm instead of npm for this repo.", []],
    ['m3', 'I opted for a queue table over cron, see 1f2e3d4c.', ['1f2e3d4c']],
  ]);
});
