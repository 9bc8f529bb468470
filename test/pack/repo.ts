import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Beads issues as `bd` writes them to `.beads/issues.jsonl`: one JSON object a line, dependencies inline. */
export const BEADS_ISSUES = [
  {
    id: 'shop-a1',
    title: 'Ship the shop on Cloudflare Workers',
    description: 'Epic for the Workers move.',
    status: 'open',
    priority: 1,
    issue_type: 'epic',
    created_at: '2026-02-18T09:00:00Z',
    updated_at: '2026-02-18T09:00:00Z',
  },
  {
    id: 'shop-b2',
    title: 'Keep the Stripe keys out of wrangler.toml',
    description: 'Move secrets to wrangler secret put.',
    status: 'closed',
    priority: 1,
    issue_type: 'task',
    created_at: '2026-02-18T09:05:00Z',
    updated_at: '2026-02-20T18:40:00Z',
    closed_at: '2026-02-20T18:40:00Z',
    dependencies: [{ issue_id: 'shop-b2', depends_on_id: 'shop-a1', type: 'parent-child', created_at: '2026-02-18T09:05:00Z', created_by: 'dev' }],
  },
  {
    id: 'shop-c3',
    title: 'Deploy the shop to Workers',
    description: 'wrangler deploy from CI.',
    acceptance_criteria: 'wrangler deploy succeeds; the Stripe webhook answers 200.',
    notes: 'The TS2339 build error came back once; see the 2026-02-20 session.',
    status: 'in_progress',
    priority: 1,
    issue_type: 'task',
    assignee: 'dev',
    created_at: '2026-02-18T09:10:00Z',
    updated_at: '2026-02-24T10:00:00Z',
    dependencies: [
      { issue_id: 'shop-c3', depends_on_id: 'shop-a1', type: 'parent-child', created_at: '2026-02-18T09:10:00Z', created_by: 'dev' },
      { issue_id: 'shop-c3', depends_on_id: 'shop-b2', type: 'blocks', created_at: '2026-02-18T09:10:00Z', created_by: 'dev' },
    ],
  },
  {
    id: 'shop-d4',
    title: 'Upload STRIPE_WEBHOOK_SECRET',
    status: 'open',
    priority: 0,
    issue_type: 'bug',
    created_at: '2026-02-24T10:00:00Z',
    updated_at: '2026-02-24T10:00:00Z',
    dependencies: [{ issue_id: 'shop-d4', depends_on_id: 'shop-a1', type: 'parent-child', created_at: '2026-02-24T10:00:00Z', created_by: 'dev' }],
  },
  {
    id: 'shop-e5',
    title: 'Add a status page',
    status: 'open',
    priority: 3,
    issue_type: 'feature',
    created_at: '2026-02-24T10:00:00Z',
    updated_at: '2026-02-24T10:00:00Z',
    dependencies: [
      { issue_id: 'shop-e5', depends_on_id: 'shop-a1', type: 'parent-child', created_at: '2026-02-24T10:00:00Z', created_by: 'dev' },
      { issue_id: 'shop-e5', depends_on_id: 'shop-d4', type: 'blocks', created_at: '2026-02-24T10:00:00Z', created_by: 'dev' },
    ],
  },
];

/** A repository folder like the examples' shop: a git origin, README, docs/ with an ADR, and `.beads/`. */
export function writeShopRepo(dir: string, extraDoc = ''): string {
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n');
  writeFileSync(
    join(dir, 'README.md'),
    '# Shop\n\nA small web shop on Cloudflare Workers.\n\n## Deploying\n\nRun `wrangler deploy`. Secrets (Stripe keys) are set with `wrangler secret put`, never in `[vars]`.\n',
  );
  mkdirSync(join(dir, 'docs', 'adr'), { recursive: true });
  writeFileSync(
    join(dir, 'docs', 'adr', '0001-stripe-secrets.md'),
    `# ADR 1: Stripe keys are wrangler secrets\n\n## Decision\n\nThe Stripe secret key and the webhook secret live in wrangler secrets.\n${extraDoc}`,
  );
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'notes.md'), 'not a doc: outside doc folders only the top level counts\n');
  mkdirSync(join(dir, '.beads'), { recursive: true });
  writeFileSync(join(dir, '.beads', 'issues.jsonl'), `${BEADS_ISSUES.map((issue) => JSON.stringify(issue)).join('\n')}\n`);
  return dir;
}
