import { type Dirent, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MoonError, errnoOf } from '../errors.js';

/**
 * The transcript a capture hook names. Claude Code gives `transcript_path`; Codex may give null, and then its
 * rollout is found by the session id under the source roots (configured, else the default locations):
 * `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`. A Claude Code transcript is
 * `<session id>.jsonl` under `~/.claude/projects/<folder>/`, found the same way when its path is missing.
 */
export function locateTranscript(transcriptPath: string | null, sessionId: string | null, roots: readonly string[]): string {
  if (transcriptPath !== null) {
    const path = expandHome(transcriptPath);
    if (!isFile(path)) throw new MoonError('not_found', `the transcript the hook names does not exist: ${path}`);
    return path;
  }
  if (sessionId === null) throw new MoonError('bad_input', 'the hook payload has neither transcript_path nor session_id: no transcript to capture');
  if (!/^[A-Za-z0-9._:-]{1,200}$/.test(sessionId)) throw new MoonError('bad_input', `hook payload field "session_id" is not a session id: ${JSON.stringify(sessionId.slice(0, 80))}`);
  for (const root of roots) {
    const found = findBySessionId(root, sessionId);
    if (found) return found;
  }
  throw new MoonError('not_found', `no transcript for session ${sessionId} under ${roots.length > 0 ? roots.join(', ') : '(no source roots)'}`, {
    hint: 'the payload had no transcript_path; set sources.roots if the agent keeps its transcripts elsewhere',
  });
}

/** Folders and files looked at per root at most: a hook must not crawl a whole disk. */
const MAX_VISITS = 50_000;

/**
 * Depth first, newest name first in every folder (`2026` before `2025`, `03` before `02`): a session that just
 * ran is in the newest day folder, found after a handful of reads.
 */
export function findBySessionId(root: string, sessionId: string): string | null {
  const matches = (name: string): boolean =>
    name === `${sessionId}.jsonl` || (name.startsWith('rollout-') && name.endsWith(`-${sessionId}.jsonl`));
  if (isFile(root)) return matches(root.split(/[\\/]/).pop() ?? '') ? root : null;
  let visits = 0;
  const walk = (dir: string): string | null => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM'].includes(errnoOf(error) ?? '')) return null;
      throw error;
    }
    visits += entries.length;
    const file = entries.find((entry) => entry.isFile() && matches(entry.name));
    if (file) return join(dir, file.name);
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort().reverse();
    for (const folder of folders) {
      if (visits > MAX_VISITS) return null;
      const found = walk(join(dir, folder));
      if (found) return found;
    }
    return null;
  };
  return walk(root);
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
