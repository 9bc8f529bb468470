import type { Command } from 'commander';
import type { SessionListing } from '../../../index.js';
import { SOURCE_NAMES, describeSessionTitle, validateSource } from '../../../index.js';
import type { CliContext } from '../context.js';
import { describeNames, escapeControl, formatLocalRange, plural } from '../format.js';
import { printJson } from '../output.js';
import { collect } from './index-command.js';
import { parsePositive } from './numbers.js';

interface SessionsFlags {
  project: string[];
  source: string[];
  since?: string;
  until?: string;
  limit?: string;
  tz?: string;
  json?: boolean;
}

/** Tools listed per session before `+N more`. */
const TOOLS_SHOWN = 5;

export function registerSessions(program: Command, context: CliContext): void {
  program
    .command('sessions')
    .description('list indexed sessions, newest first: time range, project, title, messages, tools')
    .option('--project <name>', 'only this project (name, or part of the cwd with a /; repeatable)', collect, [])
    .option('--source <name>', `only ${describeNames(SOURCE_NAMES)} (repeatable)`, collect, [])
    .option('--since <when>', 'only sessions still running at or after this time: ISO date/time, or words like yesterday, "last week"')
    .option('--until <when>', 'only sessions started before this time: ISO date/time, or words like yesterday')
    .option('--limit <n>', 'at most this many sessions')
    .option('--tz <zone>', 'IANA zone for dates and times shown (default the residential zone)')
    .option('--json', 'print the listing as JSON')
    .action(async (flags: SessionsFlags) => {
      const listing = await context.moon().history.sessions({
        project: flags.project.length > 0 ? flags.project : undefined,
        source: flags.source.length > 0 ? flags.source.map(validateSource) : undefined,
        since: flags.since,
        until: flags.until,
        limit: flags.limit === undefined ? undefined : parsePositive('--limit', flags.limit),
        tz: flags.tz,
      });
      if (flags.json) printJson(context.io, listing);
      else context.io.out(formatSessions(listing));
    });
}

export function formatSessions(listing: SessionListing): string {
  if (listing.sessions.length === 0) return 'No sessions.';
  const lines = listing.sessions.map((session) => {
    const tools = session.tools.slice(0, TOOLS_SHOWN).map((tool) => `${tool.name}×${tool.count}`);
    if (session.tools.length > TOOLS_SHOWN) tools.push(`+${session.tools.length - TOOLS_SHOWN} more`);
    return [
      session.session_id,
      formatLocalRange(session.start_ms, session.end_ms, listing.timezone),
      session.project ?? '-',
      describeSessionTitle(session.title, session.first_prompt),
      plural(session.message_count, 'message'),
      tools.length > 0 ? `tools: ${tools.join(', ')}` : 'no tools',
    ]
      .map((field) => escapeControl(field, { oneLine: true }))
      .join(' | ');
  });
  return `${lines.join('\n')}\n\n${plural(listing.sessions.length, 'session')}`;
}

