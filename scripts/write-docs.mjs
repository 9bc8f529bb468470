#!/usr/bin/env node
// Rewrites the generated blocks of the docs from the code: `<!-- generated: mcp-tools -->` … `<!-- /generated -->`
// (the MCP server's tools, as it registers them). test/docs/generated.test.ts fails when a block is stale.
// Usage: npm run build && node scripts/write-docs.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const REPO = resolve(import.meta.dirname, '..');
export const DOCS_WITH_TOOLS = ['docs/agents/claude-code.md', 'docs/agents/codex.md', 'docs/agents/openclaw.md'];
const BLOCK = /(<!-- generated: mcp-tools -->\n)[\s\S]*?(<!-- \/generated -->)/;

/** The tools `registerTools` registers, in its order: name, title, whether it only reads. */
export async function listMcpTools(registerTools) {
  const tools = [];
  registerTools({ registerTool: (name, meta) => tools.push({ name, title: meta.title ?? name, readOnly: meta.annotations?.readOnlyHint === true }) }, {});
  return tools;
}

export function renderToolTable(tools) {
  const reads = tools.filter((tool) => tool.readOnly).length;
  const writes = tools.length - reads;
  return [
    `The moon MCP server's ${tools.length} tools (${reads} read-only${writes > 0 ? `, ${writes} that write${writes === 1 ? 's' : ''} a draft a person approves` : ''}):`,
    '',
    '| tool | what it is for | reads only |',
    '| --- | --- | --- |',
    ...tools.map((tool) => `| \`${tool.name}\` | ${tool.title} | ${tool.readOnly ? 'yes' : 'no'} |`),
    '',
  ].join('\n');
}

export function rewriteBlock(text, table) {
  return BLOCK.test(text) ? text.replace(BLOCK, `$1${table}$2`) : null;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { registerTools } = await import(pathToFileURL(join(REPO, 'dist/interfaces/mcp/tools.js')).href);
  const table = renderToolTable(await listMcpTools(registerTools));
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const doc of DOCS_WITH_TOOLS) {
    const path = join(REPO, doc);
    const text = readFileSync(path, 'utf8');
    const next = rewriteBlock(text, table);
    if (next === null) throw new Error(`${doc}: no <!-- generated: mcp-tools --> block`);
    if (next !== text) {
      stale += 1;
      if (!check) writeFileSync(path, next);
      console.error(`${check ? 'stale' : 'rewrote'}: ${doc}`);
    }
  }
  process.exitCode = check && stale > 0 ? 1 : 0;
}
