import { describe, expect, test } from 'vitest';
import { beadsSubsystem, beadsWriteback, isReady, planningCandidates, readBeads } from '../../src/pack/beads.js';
import { makeTempDir } from '../helpers/cli.js';
import { writeShopRepo } from './repo.js';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

describe('Beads planning', () => {
  test('reads .beads/issues.jsonl: the item with acceptance criteria and notes, its dependencies, its ready siblings', async () => {
    const dir = makeTempDir('moon-beads-');
    try {
      const root = writeShopRepo(dir.path);
      // A bad line and a later version of an issue: the bad one is skipped, the later one wins.
      appendFileSync(join(root, '.beads', 'issues.jsonl'), 'not json\n{"id":"shop-e5","title":"Add a status page (v2)","status":"open","dependencies":[{"depends_on_id":"shop-a1","type":"parent-child"}]}\n');
      const issues = readBeads(root)!;
      expect(issues.size).toBe(5);
      expect(isReady(issues.get('shop-d4')!, issues)).toBe(true);
      expect(isReady(issues.get('shop-c3')!, issues)).toBe(false);
      const items = planningCandidates(issues, 'shop-c3', '.beads/issues.jsonl');
      expect(items.map((item) => item.provenance)).toEqual([
        { beads_id: 'shop-c3', file: '.beads/issues.jsonl', role: 'work item', status: 'in_progress' },
        { beads_id: 'shop-a1', file: '.beads/issues.jsonl', role: 'dependency (parent-child)', status: 'open' },
        { beads_id: 'shop-b2', file: '.beads/issues.jsonl', role: 'dependency (blocks)', status: 'closed' },
        { beads_id: 'shop-d4', file: '.beads/issues.jsonl', role: 'ready sibling', status: 'open' },
        { beads_id: 'shop-e5', file: '.beads/issues.jsonl', role: 'ready sibling', status: 'open' },
      ]);
      expect(items[0]!.text).toContain('Acceptance criteria: wrangler deploy succeeds; the Stripe webhook answers 200.');
      expect(items[0]!.text).toContain('Notes: The TS2339 build error came back once');
      expect(items[0]).toMatchObject({ source: '.beads/issues.jsonl#shop-c3', record_kind: 'work_item', trust_class: 'raw', recency: '2026-02-24T10:00:00Z' });
      expect(items[4]!.text).toContain('Add a status page (v2)');

      const subsystem = beadsSubsystem();
      const base = { task: 'deploy', namespace_id: 'github.com/acme/shop', root, error: null };
      expect(await subsystem.gather({ ...base, planning: 'shop-c3' }, 500)).toHaveLength(5);
      await expect(subsystem.gather({ ...base, planning: null }, 500)).rejects.toMatchObject({ reason: 'off' });
      await expect(subsystem.gather({ ...base, planning: 'shop-zz' }, 500)).rejects.toMatchObject({ reason: 'missing' });
      await expect(subsystem.gather({ ...base, planning: 'shop-c3', root: dir.path + '/src' }, 500)).rejects.toMatchObject({ reason: 'missing' });
    } finally {
      dir.cleanup();
    }
  });

  test('writeback goes through bd, best-effort: failures are logged and reported, never raised', async () => {
    const calls: string[][] = [];
    const logged: string[] = [];
    const ok = beadsWriteback('/repo', {
      runner: async (args, cwd) => {
        calls.push([cwd, ...args]);
        return { code: 0, stdout: '', stderr: '' };
      },
      log: (message) => logged.push(message),
    });
    expect(await ok.claim('shop-c3', { session_id: 's-1', message_ids: [], archive_path: null, commits: ['abc123'] })).toMatchObject({ ok: true });
    expect(await ok.close('shop-c3', 'deployed')).toMatchObject({ ok: true });
    expect(await ok.createFollowUp('shop-c3', 'Rotate the webhook secret')).toMatchObject({ ok: true });
    expect(calls).toEqual([
      ['/repo', 'update', 'shop-c3', '--status', 'in_progress', '--notes', 'claimed by moon run session s-1, commits abc123'],
      ['/repo', 'close', 'shop-c3', '--reason', 'deployed'],
      ['/repo', 'create', 'Rotate the webhook secret', '--deps', 'discovered-from:shop-c3'],
    ]);
    expect(logged).toEqual([]);

    const failing = beadsWriteback('/repo', {
      runner: async (args) => (args[0] === 'close' ? Promise.reject(new Error('spawn bd ENOENT')) : { code: 1, stdout: '', stderr: 'no issue shop-zz' }),
      log: (message) => logged.push(message),
    });
    expect(await failing.claim('shop-zz', { session_id: 's-1', message_ids: [], archive_path: null, commits: [] })).toMatchObject({ ok: false, detail: expect.stringContaining('exit 1: no issue shop-zz') });
    expect(await failing.close('shop-zz', 'x')).toMatchObject({ ok: false, detail: expect.stringContaining('ENOENT') });
    expect(logged).toHaveLength(2);
  });
});
