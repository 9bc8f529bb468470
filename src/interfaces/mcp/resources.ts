import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Moon } from '../../index.js';
import { MoonError, formatResidentialDay, frameHistory } from '../../index.js';
import { BUDGET, type Safe } from './shapes.js';

/**
 * Memory as resources: today's daily memory file ($MOON_HOME/memory/YYYY-MM-DD.md, the residential day) and the
 * durable MEMORY.md, each listed when it exists. A client reads them as quoted history, like every tool answer.
 */
const TEMPLATE = 'moon://memory/{file}';
const FILE = /^(MEMORY|\d{4}-\d{2}-\d{2})\.md$/;

export function registerResources(server: McpServer, context: { moon(): Moon; safe(): Promise<Safe> }): void {
  server.registerResource(
    'memory',
    new ResourceTemplate(TEMPLATE, {
      list: () => {
        const moon = context.moon();
        const today = `${formatResidentialDay(moon.clock(), moon.config.distill.residential_timezone)}.md`;
        const resources = [];
        if (existsSync(join(moon.paths.memory, today))) {
          resources.push({
            uri: `moon://memory/${today}`,
            name: `daily memory ${today.replace(/\.md$/, '')}`,
            title: "Today's memory",
            description: 'What moon distilled from today’s sessions so far (L1 daily memory)',
            mimeType: 'text/markdown',
          });
        }
        if (existsSync(moon.paths.memoryFile)) {
          resources.push({
            uri: 'moon://memory/MEMORY.md',
            name: 'MEMORY.md',
            title: 'Durable memory',
            description: 'Preferences, decisions and facts moon keeps across days (L2 MEMORY.md)',
            mimeType: 'text/markdown',
          });
        }
        return { resources };
      },
    }),
    { title: 'moon memory', description: "Today's daily memory file and MEMORY.md", mimeType: 'text/markdown' },
    async (uri, variables) => {
      const file = String(Array.isArray(variables.file) ? variables.file[0] : variables.file);
      if (!FILE.test(file)) throw new MoonError('not_found', `no memory resource ${uri.href} (moon://memory/MEMORY.md or moon://memory/YYYY-MM-DD.md)`);
      const moon = context.moon();
      const path = file === 'MEMORY.md' ? moon.paths.memoryFile : join(moon.paths.memory, file);
      if (!existsSync(path)) throw new MoonError('not_found', `${file} does not exist yet`);
      const safe = await context.safe();
      const text = readFileSync(path, 'utf8');
      const clipped = safe.clip(text, BUDGET.resource);
      const note = clipped.cut ? `\n(cut to ${BUDGET.resource} characters)` : '';
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: `${frameHistory(clipped.text)}${note}` }] };
    },
  );
}
