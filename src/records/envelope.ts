import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findWorktreeRepoPath } from '../sources/path-names.js';

/**
 * The envelope every memory-plane record carries (seed 003): run digests, fix patterns, long-term memories and
 * documents. Planes keep their own tables and ports; these fields mean the same thing in each, so a context pack
 * can rank, filter and cite items from any of them alike.
 */
export const RECORD_KINDS = ['run_digest', 'fix_pattern', 'decision', 'long_term', 'doc'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** `raw`: taken from a transcript as is; `derived`: moon's own distillation; `approved`: a person approved it. */
export const TRUST_CLASSES = ['raw', 'derived', 'approved'] as const;
export type TrustClass = (typeof TRUST_CLASSES)[number];

/** Who may see it: `project` (its namespace), `team` (every namespace of the database), `user` (this person). */
export const SECURITY_SCOPES = ['project', 'team', 'user'] as const;
export type SecurityScope = (typeof SECURITY_SCOPES)[number];

export interface RecordEnvelope {
  record_kind: RecordKind;
  /** The project the record belongs to (see resolveNamespace); records of one namespace never leak into another. */
  namespace_id: string;
  /** The repository (git remote, normalised) or null when the project has none. */
  repo: string | null;
  security_scope: SecurityScope;
  trust_class: TrustClass;
  created_at_ms: number;
  /** Past this instant the record is not returned, and `moon gc` removes it. */
  expires_at_ms: number | null;
  /** The run (agent session) it came from: session id, message ids, archive path, commits it names. */
  run_ref: RunRef | null;
}

export interface RunRef {
  session_id: string;
  message_ids: string[];
  archive_path: string | null;
  commits: string[];
}

export interface Namespace {
  namespace_id: string;
  repo: string | null;
  /** The folder the namespace was resolved from (the repository root when there is one). */
  root: string | null;
}

/**
 * The namespace of a working directory: its repository's `origin` remote, normalised (`github.com/acme/shop`)
 * when it has one, else the repository root (a worktree counts as its repository), else the directory itself.
 * A session with no cwd falls back to its project name. One rule, for every plane and every interface.
 */
export function resolveNamespace(cwd: string | null, project: string | null = null, readRemote: (root: string) => string | null = readOriginRemote): Namespace {
  if (!cwd) return { namespace_id: project ? `project:${project}` : 'unknown', repo: null, root: null };
  const root = findRepoRoot(resolve(findWorktreeRepoPath(cwd) ?? cwd));
  const remote = root ? readRemote(root) : null;
  const repo = remote ? normalizeRemote(remote) : null;
  return { namespace_id: repo ?? `path:${root ?? resolve(cwd)}`, repo, root: root ?? resolve(cwd) };
}

/** `git@github.com:acme/shop.git`, `https://user@github.com/acme/shop` → `github.com/acme/shop`. */
export function normalizeRemote(remote: string): string {
  const trimmed = remote.trim().replace(/\/+$/, '').replace(/\.git$/, '');
  const scp = /^[\w.-]+@([^:/]+):(.+)$/.exec(trimmed);
  if (scp) return `${scp[1]!.toLowerCase()}/${scp[2]}`;
  try {
    const url = new URL(trimmed);
    return `${url.hostname.toLowerCase()}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return trimmed;
  }
}

/** The nearest folder at or above `dir` holding `.git`, or null. Reads the disk only. */
function findRepoRoot(dir: string): string | null {
  let current = dir;
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = resolve(current, '..');
    if (parent === current) return null;
    current = parent;
  }
}

/** The `origin` remote's URL from `.git/config` (a worktree's `.git` file points at its repository), or null. */
function readOriginRemote(root: string): string | null {
  try {
    const config = readFileSync(join(root, '.git', 'config'), 'utf8');
    const section = /\[remote "origin"\]([\s\S]*?)(?:\n\[|$)/.exec(config)?.[1] ?? '';
    return /^\s*url\s*=\s*(.+)$/m.exec(section)?.[1]?.trim() ?? null;
  } catch {
    try {
      return execFileSync('git', ['-C', root, 'remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim() || null;
    } catch {
      return null;
    }
  }
}
