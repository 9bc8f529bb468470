import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `moon mcp`: the MCP server over stdio (src/interfaces/mcp). Its SDK is loaded only when this command runs. */
export function registerMcp(program: Command, context: CliContext): void {
  program
    .command('mcp')
    .description('serve recall, timeline, get_entries and get_session to an agent over MCP (stdio)')
    .action(async () => {
      const { runMcpServer } = await import('../../mcp/server.js');
      await runMcpServer({ moon: context.moon, version: program.version() ?? 'unknown', log: (line) => context.io.err(line) });
    });
}
