import type { Command } from 'commander';
import type { MarkersResult } from '../../../index.js';
import { toMarkerRecord, toMarkerScopeRecord } from '../../../index.js';
import type { CliContext } from '../context.js';
import { toFlagError } from '../flag-errors.js';
import { escapeControl, formatLocalStamp, plural } from '../format.js';
import { printJson } from '../output.js';
import { collect } from './index-command.js';
import { parsePositive } from './numbers.js';

interface MarkersFlags {
  type: string[];
  session?: string;
  since?: string;
  until?: string;
  limit?: string;
  allProjects?: boolean;
  json?: boolean;
}

export function registerMarkers(program: Command, context: CliContext): void {
  program
    .command('markers')
    .description('list the @/ markers (@/decision: …, @/bug: …, @/todo: …) written in your sessions, newest first')
    .argument('[words...]', 'only markers whose text holds every word')
    .option('--type <type>', 'only this type: decision, breaking, security, bug, api, pattern, perf, todo, ref or a configured one (repeatable, or a comma list)', collect, [])
    .option('--session <id>', 'only this session (an id or a unique prefix)')
    .option('--since <when>', 'only at or after this time: ISO date/time, or words like yesterday, "last week", "3 days ago"')
    .option('--until <when>', 'only before this time: ISO date/time, or words like yesterday (the start of that day)')
    .option('--limit <n>', 'at most this many markers (default 50)')
    .option('--all-projects', 'every project, not only the one the current directory belongs to')
    .option('--json', 'print {scope, counts, markers: [{type, content, importance, session_id, entry_id, source_field, line, context, timestamp}]}')
    .action(async (words: string[], flags: MarkersFlags) => {
      const moon = context.moon();
      const text = words.join(' ').trim();
      const types = flags.type.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
      const result = await moon
        .history.markers({
          types,
          session: flags.session ?? null,
          since: flags.since,
          until: flags.until,
          text: text === '' ? null : text,
          limit: flags.limit === undefined ? undefined : parsePositive('--limit', flags.limit),
          cwd: process.cwd(),
          allProjects: flags.allProjects ?? false,
        })
        .catch((error: unknown) => {
          throw toFlagError(error);
        });
      const note = describeScope(result.scope);
      if (flags.json) {
        printJson(context.io, await moon.agents.makeSafe({ scope: toMarkerScopeRecord(result.scope), counts: result.counts, markers: result.markers.map(toMarkerRecord) }));
        return;
      }
      if (note) context.io.err(`note: ${note}`);
      context.io.out(formatMarkers(await moon.agents.makeSafe(result), context.config().distill.residential_timezone, types));
    });
}

/** What the scope left out, as recall says it; null when every project is in reach anyway. */
function describeScope(scope: MarkersResult['scope']): string | null {
  if (scope.kind !== 'project' || scope.everything) return null;
  return `scoped to the ${plural(scope.sessionIds.length, 'session')} of ${scope.roots.join(', ')} (the current directory's project); --all-projects lists every project`;
}

/** One block per marker, newest first: time, type and text, then where it was written; then the counts by type. */
export function formatMarkers(result: MarkersResult, zone: string, types: readonly string[] = []): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  if (result.markers.length === 0) return 'No markers.';
  const blocks = result.markers.map((marker) => {
    const when = marker.ts === null ? '(no time)' : formatLocalStamp(marker.ts, zone);
    const where = [
      clean(marker.project ?? '-'),
      `session ${clean(marker.sessionId)}`,
      `message ${clean(marker.entryId)}`,
      `${marker.sourceField} line ${marker.line}`,
    ].join(' · ');
    return `${when}  @/${clean(marker.type)}: ${clean(marker.content)}\n  ${where}`;
  });
  const counted = Object.entries(result.counts).filter(([type]) => types.length === 0 || types.includes(type));
  const counts = counted
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([type, count]) => `${clean(type)} ${count}`)
    .join(', ');
  const total = counted.reduce((sum, [, count]) => sum + count, 0);
  const shown = result.markers.length < total ? `${result.markers.length} shown of ${plural(total, 'marker')}` : plural(total, 'marker');
  return `${blocks.join('\n')}\n\n${shown}${counts ? ` (${counts})` : ''}`;
}
