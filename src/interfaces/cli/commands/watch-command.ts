import type { Command } from 'commander';
import { MoonError } from '../../../errors.js';
import { type CycleSummary, STOP_EXIT_DEADLINE_MS, lowerPriority, toWireKeys } from '../../../index.js';
import type { CliContext } from '../context.js';
import { startServer } from './serve-command.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';

export function registerWatch(program: Command, context: CliContext): void {
  program
    .command('watch')
    .description('index new and grown transcripts as they are written, L1 pending projections, L2 once a day (until stopped)')
    .option('--once', 'one cycle, then exit (the manual trigger for the same queue)')
    .option('--daemon', 'run as the background service: log to $MOON_LOGS_DIR/moon-watch.log only')
    .option('--dry-run', 'say what a cycle would do, change nothing')
    .option('--serve', 'also serve the HTTP API from this process (as `moon serve`)')
    .option('--host <host>', 'with --serve: address to bind')
    .option('--port <port>', 'with --serve: port')
    .option('--json', 'print the cycle summary (or plan) as JSON')
    .action(async (options: { once?: boolean; daemon?: boolean; dryRun?: boolean; json?: boolean; serve?: boolean; host?: string; port?: string }) => {
      if (!options.dryRun) lowerPriority();
      const watcher = await context.moon().upkeep.watcher();
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      if (options.dryRun) {
        const plan = watcher.planCycle();
        if (options.json) printJson(context.io, toWireKeys(plan));
        else {
          context.io.out(`roots: ${plan.roots.length > 0 ? plan.roots.map(clean).join(', ') : '(none found)'}`);
          context.io.out(`L1: ${plan.pending_l1.length} pending projection(s) this cycle${plan.cooldown_left_secs > 0 ? ` after the cooldown (${plan.cooldown_left_secs} s left)` : ''}`);
          for (const path of plan.pending_l1) context.io.out(`  ${clean(path)}`);
          context.io.out(`L2: ${plan.syns.due ? `due for ${plan.syns.day} (${clean(plan.syns.file)})` : 'already ran today'}`);
        }
        return;
      }
      if (options.once) {
        const summary = await watcher.watchOnce({ echo: (line) => context.io.err(line) });
        if (options.json) printJson(context.io, toWireKeys(summary));
        else context.io.out(formatCycle(summary));
        if (summary.errors.length > 0) context.setExitCode(1);
        return;
      }
      if ((options.host || options.port) && !options.serve) throw new MoonError('bad_usage', '--host and --port go with --serve');
      // One process, both jobs: indexing yields between files, so requests are answered while it works.
      const server = options.serve ? await startServer(context, options) : null;
      try {
        await watcher.watch({ daemon: options.daemon, echo: (line) => context.io.err(line), exitDeadlineMs: STOP_EXIT_DEADLINE_MS });
      } finally {
        await server?.close();
      }
    });

  program
    .command('stop')
    .description('stop the running watcher: it ends within seconds, mid-file if need be (a file cut short is read again next start)')
    .option('--timeout <secs>', 'how long to wait for it', '15')
    .option('--json', 'print as JSON')
    .action(async (options: { timeout: string; json?: boolean }) => {
      const seconds = Number(options.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) throw new MoonError('bad_usage', `--timeout must be a positive number of seconds, got "${options.timeout}"`);
      const result = await (await context.moon().upkeep.watcher()).stop(seconds * 1000);
      if (options.json) printJson(context.io, result);
      else context.io.out(result.state === 'stopped' ? `stopped the watcher (pid ${result.pid})` : result.state === 'stale' ? `no watcher running (stale lock of pid ${result.pid})` : 'no watcher running');
    });

  program
    .command('health')
    .description('exit 0 when the watcher runs and its last cycle is recent and clean; 1 with the reasons otherwise')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }) => {
      const status = (await context.moon().upkeep.watcher()).status();
      const config = context.config();
      const problems: string[] = [];
      if (status.daemon.state !== 'running') problems.push(`watcher ${status.daemon.state}${status.daemon.pid ? ` (pid ${status.daemon.pid})` : ''}`);
      const last = status.last_cycle;
      const nowSecs = Math.floor(context.moon().clock() / 1000);
      const staleAfter = config.watcher.poll_interval_secs * 3 + 60;
      if (!last) problems.push('no cycle has run yet');
      else {
        if (nowSecs - last.finished_at_epoch_secs > staleAfter) problems.push(`last cycle ${nowSecs - last.finished_at_epoch_secs} s ago (more than ${staleAfter} s)`);
        for (const error of last.errors) problems.push(`last cycle: ${error}`);
      }
      if (status.last_syns && status.last_syns.outcome !== 'written' && status.last_syns.outcome !== 'nothing to read') {
        problems.push(`last L2 synthesis (${status.last_syns.day}) ${status.last_syns.outcome}`);
      }
      if (options.json) printJson(context.io, { healthy: problems.length === 0, problems, status });
      else context.io.out(problems.length === 0 ? `healthy: watcher pid ${status.daemon.pid}, ${status.cycles} cycles` : `unhealthy:\n${problems.map((p) => `  ${escapeControl(p, { oneLine: true })}`).join('\n')}`);
      if (problems.length > 0) context.setExitCode(1);
    });
}

export function formatCycle(summary: CycleSummary): string {
  const l1 =
    summary.l1.state === 'ran'
      ? `${summary.l1.written} written, ${summary.l1.failed} failed, ${summary.l1.remaining} left`
      : summary.l1.state === 'skipped'
        ? `skipped (lock held by pid ${summary.l1.owner ?? '?'})`
        : summary.l1.state;
  return [
    `indexed: ${summary.files_indexed} files, ${summary.entries} entries`,
    `L1: ${l1}`,
    `L2: ${summary.syns ? `${summary.syns.day} ${summary.syns.outcome}` : 'not due'}`,
    ...summary.errors.map((error) => `error: ${escapeControl(error, { oneLine: true })}`),
  ].join('\n');
}
