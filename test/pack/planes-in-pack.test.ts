import { afterEach, expect, test } from 'vitest';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';

/**
 * The planes feed the pack: for a task with an error, the history section carries the verified fix pattern and
 * the run digests of the project; the long-term section carries approved memories only — never drafts, never
 * deprecated ones, never another project's.
 */
let current: TestHome | null = null;
afterEach(async () => {
  await current?.cleanup();
  current = null;
});

test('digests, fix patterns and approved long-term memories reach the pack, with their kinds and evidence', async () => {
  current = await makeIndexedHome();
  const { moon } = current;
  const shop = '/home/dev/shop';
  await moon.memory.digestSession({ all: true });
  const memory = await moon.memory.longTerm();
  const approved = await memory.add({ text: 'Stripe keys for the shop Worker are wrangler secrets, never [vars] in wrangler.toml', cwd: shop });
  await memory.setState({ id: approved.memory.id, state: 'approved', cwd: shop });
  await memory.add({ text: 'Draft: maybe move the shop deploy to a GitHub Action', cwd: shop });
  const other = await memory.add({ text: 'Ledger invoices use Stripe keys from Vault', cwd: '/home/dev/ledger-api' });
  await memory.setState({ id: other.memory.id, state: 'approved', cwd: '/home/dev/ledger-api' });

  const pack = await moon.memory.contextPack({
    task: 'deploy the shop worker with its Stripe keys',
    error: "error TS2339: Property 'STRIPE_SECRET_KEY' does not exist on type 'Env'.",
    cwd: shop,
    budget: 4000,
  });
  const kinds = new Set(pack.items.map((item) => item.record_kind));
  expect(kinds).toContain('fix_pattern');
  expect(kinds).toContain('run_digest');
  expect(kinds).toContain('long_term');
  const fix = pack.items.find((item) => item.record_kind === 'fix_pattern')!;
  expect(fix.text).toMatch(/^verified fix for `.*TS2339/);
  expect(fix.provenance).toMatchObject({ state: 'verified' });
  const longTerm = pack.items.filter((item) => item.record_kind === 'long_term' && item.source.startsWith('long-term memory'));
  expect(longTerm.map((item) => item.text)).toEqual(['Stripe keys for the shop Worker are wrangler secrets, never [vars] in wrangler.toml']);
  expect(pack.items.some((item) => /Vault|GitHub Action/.test(item.text))).toBe(false);
  expect(pack.used_tokens).toBeLessThanOrEqual(4000);
}, 60_000);

test('a user-scoped memory reaches the packs of every project; a project-scoped one only its own', async () => {
  current = await makeIndexedHome();
  const { moon } = current;
  const memory = await moon.memory.longTerm();
  const approve = async (text: string, cwd: string, scope: 'project' | 'user') => {
    const added = await memory.add({ text, cwd, scope });
    await memory.setState({ id: added.memory.id, state: 'approved', cwd });
  };
  await approve('Answer in British English, and keep replies short', '/home/dev/ledger-api', 'user');
  await approve('Ledger invoices use Stripe keys from Vault', '/home/dev/ledger-api', 'project');
  const pack = await moon.memory.contextPack({ task: 'write the shop release notes in English', cwd: '/home/dev/shop', budget: 4000 });
  const texts = pack.items.filter((item) => item.record_kind === 'long_term' && item.source.startsWith('long-term memory')).map((item) => item.text);
  expect(texts).toEqual(['Answer in British English, and keep replies short']);
  const shared = pack.items.find((item) => item.text.startsWith('Answer in British'))!;
  expect(shared.provenance).toMatchObject({ scope: 'user' });
}, 60_000);

test('decisions of earlier runs reach the pack with their evidence state, verified ones said to be verified', async () => {
  current = await makeIndexedHome();
  const { moon } = current;
  const decisions = await moon.memory.decisions({ cwd: '/home/dev/shop' });
  const secret = decisions.decisions.find((item) => item.text.startsWith('Decision: STRIPE_SECRET_KEY'));
  // The change after it (env.d.ts, wrangler.toml) and then the failing `npm run build` passing: verified.
  expect(secret).toMatchObject({ state: 'verified', verified_by: { how: 'passing_run' } });
  const pack = await moon.memory.contextPack({ task: 'where do the stripe secret keys go for wrangler', cwd: '/home/dev/shop', budget: 4000 });
  const item = pack.items.find((candidate) => candidate.record_kind === 'decision');
  expect(item).toBeDefined();
  // Said once: the record's own "Decision:" label is taken off.
  expect(item!.text).toMatch(/^verified decision \(a check passed after it\): STRIPE_SECRET_KEY/);
  expect(item!.provenance).toMatchObject({ state: 'verified', session_id: secret!.session_id });
  expect(item!.section).toBe('history');
}, 60_000);
