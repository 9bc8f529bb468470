import type { Command } from 'commander';
import { MoonError } from '../../../errors.js';
import type { StatusReport } from '../../../moon.js';
import { type HookUsageReport, type WatcherStatus, toWireKeys } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { formatBytes, printJson } from '../output.js';

export function registerStatus(program: Command, context: CliContext): void {
  program
    .command('status')
    .description('sessions, entries, sizes, per-source counts, failed files and the last run')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }) => {
      const status = await context.moon().upkeep.status();
      const damaged = status.damage !== null && status.damage.length > 0;
      if (options.json) printJson(context.io, toWireKeys(status));
      else context.io.out(formatStatus(status));
      if (damaged) {
        throw new MoonError('corrupt', `the index ${escapeControl(status.db, { oneLine: true })} is damaged`, {
          hint: 'run `moon verify` for details and `moon rebuild` to rebuild it from the raw archive',
        });
      }
    });
}

function formatStatus(status: StatusReport): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const lines = [
    `home: ${clean(status.home)}`,
    `index: ${status.engine === 'postgres' ? 'PostgreSQL ' : ''}${clean(status.db)} (${formatBytes(status.dbBytes)})`,
    `sessions: ${status.sessions}  entries: ${status.entries}  files: ${status.files}  compaction anchors: ${status.anchors}`,
    ...Object.entries(status.bySource).map(([source, counts]) => `  ${clean(source)}: ${counts.sessions} sessions, ${counts.entries} entries`),
    `embeddings: ${status.embeddingModel ? `${status.embeddings}/${status.entries} entries (${clean(status.embeddingModel.id)})` : 'off'}`,
    `source roots (read when moon index gets no PATH): ${status.sourceRoots.length > 0 ? status.sourceRoots.map(clean).join(', ') : '(none found)'}`,
    `time zone: ${clean(status.timezone)}`,
    status.lastRun
      ? `last run: ${clean(status.lastRun.command)} at ${new Date(status.lastRun.finishedAtMs).toISOString()} — ${status.lastRun.files} files, ${status.lastRun.filesChanged} changed, ${status.lastRun.entries} entries, ${status.lastRun.warnings} warnings, ${status.lastRun.errors} errors`
      : 'last run: never',
    status.failures.length > 0
      ? `failed, skipped until changed (moon index --force retries): ${status.failures.length}`
      : 'failed files: none',
    ...status.failures.map((failure) => `  ${clean(failure.reason)}`),
    `integrity: ${status.damage === null ? 'no index yet' : status.damage.length === 0 ? 'ok' : `DAMAGED — ${clean(status.damage.join('; '))}`}`,
    ...formatWatcher(status.watcher),
    ...formatHooks(status.hooks),
  ];
  return lines.join('\n');
}

function formatWatcher(watcher: WatcherStatus): string[] {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const daemon = watcher.daemon;
  const last = watcher.last_cycle;
  const lines = [
    `watcher: ${daemon.state}${daemon.pid !== null ? ` (pid ${daemon.pid}${daemon.started_at_epoch_secs ? `, since ${new Date(daemon.started_at_epoch_secs * 1000).toISOString()}` : ''}${daemon.legacy ? ', legacy lock' : ''})` : ''}`,
    `  last cycle: ${last ? `${new Date(last.finished_at_epoch_secs * 1000).toISOString()} (${last.trigger}) — ${last.files_indexed} files indexed, L1 ${last.l1.state} ${last.l1.written} written${last.errors.length > 0 ? `, ${last.errors.length} errors` : ''}` : 'never'}`,
    `  pending L1: ${watcher.pending_l1.count}`,
    `  last L2 synthesis: ${watcher.last_syns ? `${watcher.last_syns.day} ${watcher.last_syns.outcome}` : 'never'}`,
  ];
  const usage = Object.values(watcher.usage);
  if (usage.length > 0) lines.push('  context usage:');
  for (const item of usage) {
    lines.push(`    ${clean(item.session_id)}: ${item.used_tokens}/${item.max_tokens} tokens (${Math.round(item.usage_ratio * 100)}%${item.level !== 'ok' ? `, ${item.level}` : ''})`);
  }
  return lines;
}

/** Agent hooks, the last 7 days that saw a run: tokens injected per hook per day, and the last failure. */
function formatHooks(hooks: HookUsageReport): string[] {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  const days = [...new Set(hooks.days.map((line) => line.day))].slice(0, 7);
  const lines = [`hooks: ${days.length === 0 ? 'no runs recorded' : 'tokens injected per hook per day'}`];
  for (const day of days) {
    const parts = hooks.days
      .filter((line) => line.day === day)
      .map((line) => `${line.event} ${line.tokens} tokens (${line.injections}/${line.runs} runs${line.failures > 0 ? `, ${line.failures} failed` : ''})`);
    lines.push(`  ${day}: ${parts.join(', ')}`);
  }
  lines.push(`  hook server: ${hooks.server === null ? 'not running' : `running (pid ${hooks.server.pid}, since ${new Date(hooks.server.started_ms).toISOString()})`}`);
  if (hooks.lastFailure) {
    lines.push(`  last failure: ${clean(hooks.lastFailure.event)} at ${new Date(hooks.lastFailure.at_epoch_secs * 1000).toISOString()} — ${clean(hooks.lastFailure.message)}`);
  }
  return lines;
}
