import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { type McpSession, startMcp, stringsIn } from './client.js';
import { findUnsafe } from '../helpers/injection.js';

/** The memory planes over MCP: remember (a draft, never injected until approved), memory_search, fixes. */
let home: TestHome;
let scratch: { path: string; cleanup: () => void };
let session: McpSession;

beforeAll(async () => {
  home = await makeIndexedHome({ zone: 'UTC' });
  scratch = makeTempDir('moon-mcp-planes-');
  mkdirSync(join(scratch.path, 'elsewhere'));
  session = await startMcp({ home: home.home, cwd: join(scratch.path, 'elsewhere'), roots: ['file:///home/dev/shop'] });
}, 60_000);

afterAll(async () => {
  await session?.close();
  await home?.cleanup();
  scratch?.cleanup();
});

test('remember makes a draft of the caller project; memory_search shows it only with drafts until a person approves it', async () => {
  const remembered = await session.call('remember', { text: 'Run wrangler deploy only after npm run build passes', session_id: '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d' });
  expect(remembered.isError).toBeFalsy();
  const memory = (remembered.structuredContent as { memory: { id: string; review_state: string; namespace_id: string } }).memory;
  expect(memory).toMatchObject({ review_state: 'draft', namespace_id: 'path:/home/dev/shop' });
  const approvedOnly = await session.call('memory_search', { query: 'wrangler deploy' });
  expect((approvedOnly.structuredContent as { memories: unknown[] }).memories).toEqual([]);
  const withDrafts = await session.call('memory_search', { query: 'wrangler deploy', include_drafts: true });
  expect((withDrafts.structuredContent as { memories: { id: string }[] }).memories.map((entry) => entry.id)).toEqual([memory.id]);
  // Approved by a person (the CLI's moon memory approve does the same), it is found without drafts.
  await (await home.reopen().memory.longTerm()).setState({ id: memory.id, state: 'approved', cwd: '/home/dev/shop' });
  const approved = await session.call('memory_search', { query: 'wrangler deploy' });
  expect((approved.structuredContent as { memories: { review_state: string }[] }).memories).toMatchObject([{ review_state: 'approved' }]);
}, 60_000);

test('fixes names the verified fix for an error of the caller project, with evidence', async () => {
  const result = await session.call('fixes', { query: "error TS2339: Property 'STRIPE_SECRET_KEY' does not exist on type 'Env'." });
  expect(result.isError).toBeFalsy();
  const output = result.structuredContent as { patterns: { state: string; signature: string; evidence: { files: string[] }[] }[] };
  expect(output.patterns[0]).toMatchObject({ state: 'verified' });
  expect(output.patterns[0]!.signature).toMatch(/TS2339/);
  expect(output.patterns[0]!.evidence[0]!.files.join(' ')).toMatch(/env\.d\.ts/);
  expect(findUnsafe(stringsIn(result).join('\n'))).toEqual([]);
  const bad = await session.call('remember', { text: 'x' });
  expect(bad.isError).toBe(true);
}, 60_000);

test('decisions names the verified decision of the caller project with its state and evidence', async () => {
  const result = await session.call('decisions', { query: 'wrangler secret' });
  expect(result.isError).toBeFalsy();
  const output = result.structuredContent as { decisions: { state: string; text: string; verified_by: string | null; files: string[] }[] };
  const secret = output.decisions.find((decision) => decision.text.startsWith('Decision: STRIPE_SECRET_KEY'));
  expect(secret).toMatchObject({ state: 'verified', verified_by: 'passing_run' });
  expect(secret!.files.join(' ')).toMatch(/env\.d\.ts/);
  expect(findUnsafe(stringsIn(result).join('\n'))).toEqual([]);
}, 60_000);
