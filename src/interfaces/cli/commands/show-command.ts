import type { Command } from 'commander';
import { DEFAULT_CONTEXT, type SessionShown, type ShownEntry, describeSessionTitle } from '../../../index.js';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl, formatLocalRange, formatLocalStamp, plural } from '../format.js';
import { printJson } from '../output.js';
import { parseCount } from './numbers.js';

interface ShowFlags {
  around?: string;
  context?: string;
  tz?: string;
  json?: boolean;
}

/** A tool result longer than this is cut in text mode (JSON carries it whole). */
const RESULT_CHARS = 1500;

export function registerShow(program: Command, context: CliContext): void {
  program
    .command('show')
    .description("print a session's projection, or the entries around one message or time")
    .argument('<session>', 'session id, or a unique prefix of one (8 characters or more)')
    .option('--around <message-or-time>', 'a message id (recall --json: metadata.message_ids), an ISO time, or a clock time like 14:05')
    .option('--context <n>', `entries before and after the one found (default ${DEFAULT_CONTEXT})`)
    .option('--tz <zone>', 'IANA zone for clock times and the times shown (default the residential zone)')
    .option('--json', 'print the result as JSON (an unknown session is {"found": false, ...})')
    .action(async (session: string, flags: ShowFlags) => {
      const result = await context.moon().history.show({
        session,
        around: flags.around,
        context: flags.context === undefined ? undefined : parseCount('--context', flags.context),
        tz: flags.tz,
      });
      if (!result.found) {
        // Same exit code in both modes; JSON callers also get the answer as a value on stdout.
        if (flags.json) {
          printJson(context.io, result);
          context.setExitCode(2);
          return;
        }
        throw new MoonError('not_found', escapeControl(result.message), {
          hint: result.reason === 'ambiguous' ? 'give more of the id' : 'see `moon sessions`',
        });
      }
      if (flags.json) printJson(context.io, result);
      // The projection is transcript text: newlines and tabs stay, every other control character is escaped.
      else context.io.out(result.around ? formatAround(result) : escapeControl(result.projection ?? ''));
    });
}

export function formatAround(shown: SessionShown): string {
  const session = shown.session;
  const startMs = session.start ? Date.parse(session.start) : null;
  const endMs = session.end ? Date.parse(session.end) : null;
  const header = [
    session.session_id,
    formatLocalRange(startMs, endMs, shown.timezone),
    session.project ?? '-',
    describeSessionTitle(session.title, session.first_prompt),
  ]
    .map((field) => escapeControl(field, { oneLine: true }))
    .join(' | ');
  const before = shown.entries.findIndex((entry) => entry.focus);
  const after = shown.entries.length - before - 1;
  const lines = [
    header,
    `around ${escapeControl(shown.around?.query ?? '', { oneLine: true })}: ${plural(before, 'entry', 'entries')} before, ${after} after`,
    '',
  ];
  for (const entry of shown.entries) for (const line of formatEntry(entry, shown.timezone)) lines.push(line);
  lines.push(`→ ${escapeControl(session.projection_path ?? '', { oneLine: true })}`);
  return lines.join('\n');
}

function formatEntry(entry: ShownEntry, zone: string): string[] {
  const time = entry.ts === null ? '(no time)' : formatLocalStamp(entry.ts, zone, { seconds: true });
  const who = entry.tool
    ? `tool ${entry.tool}${entry.exit_code !== null ? ` (exit ${entry.exit_code})` : entry.status ? ` (${entry.status})` : ''}`
    : `${entry.role}${entry.kind ? ` (${entry.kind})` : ''}`;
  const lines = [`${entry.focus ? '>' : ' '} ${time}  ${escapeControl(who, { oneLine: true })}  [${escapeControl(entry.id, { oneLine: true })}]`];
  for (const line of indent(escapeControl(entry.text), '    ')) lines.push(line);
  if (entry.result !== null) {
    const cut = entry.result.length > RESULT_CHARS;
    const result = cut ? `${entry.result.slice(0, RESULT_CHARS)}… (${entry.result.length - RESULT_CHARS} more characters)` : entry.result;
    for (const line of indent(escapeControl(result), '    ⎿ ', '      ')) lines.push(line);
  }
  lines.push('');
  return lines;
}

function indent(text: string, first: string, rest = first): string[] {
  return text.split('\n').map((line, index) => `${index === 0 ? first : rest}${line}`);
}
