import { afterAll, expect, test } from 'vitest';
import { HISTORY_FRAME_CLOSE, HISTORY_FRAME_OPEN } from '../../src/inject/safe-text.js';
import { formatPack } from '../../src/pack/format.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';

let current: TestHome | null = null;
afterAll(async () => current?.cleanup());

/** A context pack's text (MCP context_pack, `moon context`) carries its items inside the frame every agent-facing output has. */
test('the pack text frames its items as quoted history; its header and what was omitted stay outside', async () => {
  current = await makeIndexedHome();
  const pack = await current.moon.memory.contextPack({ task: 'stripe webhook secret for wrangler', cwd: '/home/dev/shop', budget: 2000 });
  expect(pack.items.length).toBeGreaterThan(0);
  const text = formatPack(pack);
  const [head, ...rest] = text.split('\n');
  expect(head).toMatch(/^Context pack for /);
  expect(rest[0]).toBe(HISTORY_FRAME_OPEN);
  const close = rest.indexOf(HISTORY_FRAME_CLOSE);
  expect(close).toBeGreaterThan(0);
  for (const item of pack.items) expect(rest.slice(0, close).join('\n')).toContain(`[${item.source}]`);
  expect(rest.slice(close + 1).join('\n')).not.toMatch(/^- \[/m);
}, 60_000);
