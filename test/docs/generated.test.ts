import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { registerTools } from '../../src/interfaces/mcp/tools.js';
// @ts-expect-error: a plain ES module script, no types
import { DOCS_WITH_TOOLS, REPO, listMcpTools, renderToolTable, rewriteBlock } from '../../scripts/write-docs.mjs';

/** The tool lists of docs/agents/*.md are generated from the server's own registrations: a stale one fails here. */
test('every agent doc lists exactly the tools the MCP server registers (node scripts/write-docs.mjs rewrites them)', async () => {
  const tools = (await listMcpTools(registerTools)) as { name: string; readOnly: boolean }[];
  expect(tools.length).toBeGreaterThanOrEqual(4);
  expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['recall', 'timeline', 'get_entries', 'get_session', 'remember']));
  const table = renderToolTable(tools) as string;
  for (const doc of DOCS_WITH_TOOLS as string[]) {
    const text = readFileSync(join(REPO as string, doc), 'utf8');
    const fresh = rewriteBlock(text, table) as string | null;
    expect(fresh, `${doc} has no <!-- generated: mcp-tools --> block`).not.toBeNull();
    expect(text === fresh, `${doc} is stale: run \`npm run build && node scripts/write-docs.mjs\``).toBe(true);
    // No count of tools outside the generated block can disagree with it.
    const outside = text.replace(/<!-- generated: mcp-tools -->[\s\S]*?<!-- \/generated -->/, '');
    expect(outside).not.toMatch(/\b(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?:read-only )?tools\b/i);
  }
  for (const doc of ['README.md', 'docs/cli.md', 'docs/architecture.md']) {
    const text = readFileSync(join(REPO as string, doc), 'utf8');
    expect(text, doc).not.toMatch(/\b(?:all )?(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+) (?:read-only )?(?:MCP )?tools\b/i);
  }
});
