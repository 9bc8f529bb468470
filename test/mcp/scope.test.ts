import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { claudeSession } from '../helpers/transcripts.js';
import { type McpSession, startMcp, textOf } from './client.js';

/**
 * What `moon mcp` gives an agent is scoped to the caller's project: the client's roots, else the server's working
 * directory, matched to the sessions' cwd — unless the call passes all_projects, or names a session.
 */
const SHOP_DEPLOY = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
const SHOP_WEBHOOK = 'a7d41c09-2e6f-4b3a-8c5d-9e0f1a2b3c4d';
const LEDGER = '019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b';
const LOCAL = 'local-project-session';

let home: TestHome;
let scratch: { path: string; cleanup: () => void };
/** A real folder that an indexed session ran in, so a server can be started in it. */
let project: string;
let elsewhere: string;
const open: McpSession[] = [];

interface Hit {
  session_id: string;
  message_ids: string[];
}
const hitsOf = (result: { structuredContent?: unknown }): Hit[] =>
  (result.structuredContent as { matches: { metadata: Hit }[] }).matches.map((match) => match.metadata);
const sessionsOf = (result: { structuredContent?: unknown }) => [...new Set(hitsOf(result).map((hit) => hit.session_id))].sort();

async function serve(options: { roots?: string[] | null; cwd?: string }): Promise<McpSession> {
  const session = await startMcp({ home: home.home, cwd: options.cwd ?? elsewhere, roots: options.roots ?? null });
  open.push(session);
  return session;
}

beforeAll(async () => {
  home = await makeIndexedHome({ zone: 'UTC' });
  scratch = makeTempDir('moon-mcp-scope-');
  project = join(scratch.path, 'workbench');
  elsewhere = join(scratch.path, 'elsewhere');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(elsewhere);
  const transcripts = join(scratch.path, 'transcripts');
  mkdirSync(transcripts);
  writeFileSync(
    join(transcripts, `${LOCAL}.jsonl`),
    claudeSession({
      sessionId: LOCAL,
      cwd: project,
      turns: [
        { role: 'user', at: '2026-02-26T10:00:00Z', text: 'Set up wrangler for the workbench worker too' },
        { role: 'assistant', at: '2026-02-26T10:00:30Z', text: 'Added a wrangler.toml for the workbench worker with its own name.' },
      ],
    }),
  );
  await home.moon.history.index({ roots: [transcripts] });
});

afterAll(async () => {
  for (const session of open) await session.close();
  await home?.cleanup();
  scratch?.cleanup();
});

describe('scope of moon mcp', () => {
  test("roots: only the sessions whose cwd is inside the client's roots", async () => {
    const shop = await serve({ roots: ['file:///home/dev/shop'] });
    const result = await shop.call('recall', { query: 'wrangler' });
    expect(sessionsOf(result)).toEqual([SHOP_DEPLOY, SHOP_WEBHOOK].sort());
    expect(result.structuredContent).toMatchObject({ scope: { projects: 'current', reason: 'roots', roots: ['/home/dev/shop'] } });
    expect(textOf(result)).toContain('in this project (/home/dev/shop)');

    const ledger = await serve({ roots: ['file:///home/dev/ledger-api'] });
    expect(sessionsOf(await ledger.call('recall', { query: 'flaky invoice test' }))).toEqual([LEDGER]);
    const none = await ledger.call('recall', { query: 'wrangler' });
    expect(hitsOf(none)).toEqual([]);
    expect(textOf(none)).toContain('all_projects: true');
  });

  test('all_projects reads every project; a named session is never filtered out', async () => {
    const shop = await serve({ roots: ['file:///home/dev/shop'] });
    const everything = await shop.call('recall', { query: 'wrangler', all_projects: true });
    expect(sessionsOf(everything)).toEqual(expect.arrayContaining([SHOP_DEPLOY, SHOP_WEBHOOK, LOCAL]));
    expect(everything.structuredContent).toMatchObject({ scope: { projects: 'all', reason: 'all_projects' } });

    const named = await shop.call('recall', { query: 'flaky invoice test', session: LEDGER });
    expect(sessionsOf(named)).toEqual([LEDGER]);
    expect(named.structuredContent).toMatchObject({ scope: { reason: 'session' } });
    const id = hitsOf(named)[0]!.message_ids[0]!;
    expect((await shop.call('timeline', { message_id: id })).isError).toBeFalsy();
    expect((await shop.call('get_entries', { ids: [id] })).structuredContent).toMatchObject({ missing: [] });
    expect((await shop.call('get_session', { session_id: LEDGER })).isError).toBeFalsy();
  });

  test('a timeline by time alone stays in the project unless all_projects', async () => {
    const shop = await serve({ roots: ['file:///home/dev/shop'] });
    // 2026-02-21 09:15 UTC is inside the ledger-api session; the nearest shop entries are the evening before
    const scoped = await shop.call('timeline', { time: '2026-02-21T09:15:00Z', before: 2, after: 2 });
    expect(scoped.isError, textOf(scoped)).toBeFalsy();
    const entries = (scoped.structuredContent as { entries: { session_id: string }[] }).entries;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => [SHOP_DEPLOY, SHOP_WEBHOOK].includes(entry.session_id))).toBe(true);
    const all = await shop.call('timeline', { time: '2026-02-21T09:15:00Z', before: 2, after: 2, all_projects: true });
    expect((all.structuredContent as { focus: { session_id: string } }).focus.session_id).toBe(LEDGER);
  });

  test("no roots: the server's working directory, when an indexed session ran there", async () => {
    const inProject = await serve({ cwd: project });
    const result = await inProject.call('recall', { query: 'wrangler' });
    expect(sessionsOf(result)).toEqual([LOCAL]);
    expect(result.structuredContent).toMatchObject({ scope: { projects: 'current', reason: 'cwd' } });
    // a client that has the roots capability but lists no roots is the same
    const emptyRoots = await serve({ cwd: project, roots: [] });
    expect(sessionsOf(await emptyRoots.call('recall', { query: 'wrangler' }))).toEqual([LOCAL]);
  });

  test('no roots and a working directory no indexed session ran in: everything', async () => {
    const nowhere = await serve({ cwd: elsewhere });
    const result = await nowhere.call('recall', { query: 'wrangler' });
    expect(sessionsOf(result)).toEqual(expect.arrayContaining([SHOP_DEPLOY, SHOP_WEBHOOK, LOCAL]));
    expect(result.structuredContent).toMatchObject({ scope: { projects: 'all', reason: 'unmatched_cwd' } });
  });

  test('roots the client changes are read again', async () => {
    const session = await serve({ roots: ['file:///home/dev/shop'] });
    expect(sessionsOf(await session.call('recall', { query: 'wrangler' }))).toEqual([SHOP_DEPLOY, SHOP_WEBHOOK].sort());
    await session.setRoots([pathToFileURL(project).href]);
    // the notification is handled before the next request (one stdio stream, in order)
    expect(sessionsOf(await session.call('recall', { query: 'wrangler' }))).toEqual([LOCAL]);
  });
});
