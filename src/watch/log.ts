import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The watcher's log: `$MOON_LOGS_DIR/moon-watch.log`, one JSON line per event (cycle, file indexed, L1 block,
 * L2 run, usage trigger, error), kept to about 10 MB (the previous file is `moon-watch.log.1`). A foreground
 * watcher also tells each event on stderr.
 */
export type LogLevel = 'info' | 'warn' | 'error';
export type WatchLog = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

const MAX_LOG_BYTES = 10 * 1024 * 1024;

export function watchLogPath(logsDir: string): string {
  return join(logsDir, 'moon-watch.log');
}

export function createWatchLog(logsDir: string, options: { echo?: (line: string) => void; nowMs: () => number }): WatchLog {
  const path = watchLogPath(logsDir);
  mkdirSync(logsDir, { recursive: true });
  let checked = 0;
  return (level, event, fields = {}) => {
    const line = JSON.stringify({ at: new Date(options.nowMs()).toISOString(), level, event, ...fields });
    try {
      if (checked++ % 100 === 0 && statSync(path, { throwIfNoEntry: false })?.size! > MAX_LOG_BYTES) renameSync(path, `${path}.1`);
      appendFileSync(path, `${line}\n`);
    } catch {
      // A log that cannot be written must not stop the watcher; stderr still has it when echoing.
    }
    options.echo?.(`moon watch: ${level === 'info' ? '' : `${level}: `}${event}${describeFields(fields)}`);
  };
}

function describeFields(fields: Record<string, unknown>): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}
