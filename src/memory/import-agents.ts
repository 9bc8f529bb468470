import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemoryScope } from '../records/long-term.js';

/**
 * The agents' own memories as sources of long-term memory: each paragraph or bullet of the files an agent loads
 * by itself becomes an entry (`source: import:<path>`, `agent_loaded: true`, so context packs never hand the
 * agent what it already has).
 *
 * Where they live: Claude Code loads `CLAUDE.md` (or `.claude/CLAUDE.md`) from the repository and keeps its
 * auto-memory in `<config>/projects/<project folder>/memory/*.md` (MEMORY.md the index; `<config>` is
 * $CLAUDE_CONFIG_DIR or ~/.claude; the folder is the project path with every character other than a letter or
 * digit turned into `-`). Codex loads `AGENTS.md` from the repository and keeps memories in `$CODEX_HOME/memories`
 * (default ~/.codex/memories).
 */
export const MEMORY_AGENTS = ['claude-code', 'codex'] as const;
export type MemoryAgent = (typeof MEMORY_AGENTS)[number];

export interface AgentMemoryFile {
  path: string;
  agent: MemoryAgent | null;
  scope: MemoryScope;
}

/** The Claude Code project folder name of a path: `/home/me/shop` → `-home-me-shop`. */
export function claudeProjectFolder(path: string): string {
  return resolve(path).replace(/[^A-Za-z0-9]/g, '-');
}

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.toLowerCase().endsWith('.md'))
      .sort()
      .map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile());
  } catch {
    return [];
  }
}

/** The memory files of `agents` for the project at `root` (the repository root), those that exist. */
export function findAgentMemoryFiles(root: string, agents: readonly MemoryAgent[], env: Readonly<Record<string, string | undefined>>): AgentMemoryFile[] {
  const home = env.HOME ?? homedir();
  const found: AgentMemoryFile[] = [];
  const add = (path: string, agent: MemoryAgent, scope: MemoryScope): void => {
    if (existsSync(path) && statSync(path).isFile() && !found.some((file) => file.path === path)) found.push({ path, agent, scope });
  };
  if (agents.includes('claude-code')) {
    add(join(root, 'CLAUDE.md'), 'claude-code', 'project');
    add(join(root, '.claude', 'CLAUDE.md'), 'claude-code', 'project');
    const config = env.CLAUDE_CONFIG_DIR ?? join(home, '.claude');
    for (const path of markdownFiles(join(config, 'projects', claudeProjectFolder(root), 'memory'))) add(path, 'claude-code', 'project');
  }
  if (agents.includes('codex')) {
    add(join(root, 'AGENTS.md'), 'codex', 'project');
    const codexHome = env.CODEX_HOME ?? join(home, '.codex');
    for (const path of markdownFiles(join(codexHome, 'memories'))) add(path, 'codex', 'user');
  }
  return found;
}

/** A file given by hand: itself, or the markdown files of a folder. */
export function listGivenFiles(path: string, scope: MemoryScope = 'project'): AgentMemoryFile[] {
  const full = resolve(path);
  const files = statSync(full).isDirectory() ? markdownFiles(full) : [full];
  return files.map((file) => ({ path: file, agent: null, scope }));
}

export function hashContent(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}

/**
 * The entries of a memory file: each bullet (with its continuation lines) and each paragraph. Headings, code
 * blocks, front matter, HTML comments, tables and rules are left out; so are items of fewer than three words.
 */
export function splitMemoryFile(content: string): string[] {
  const lines = content.replace(/\r\n?/g, '\n').replace(/<!--[\s\S]*?-->/g, '').split('\n');
  const items: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const text = current.join(' ').replace(/\s+/g, ' ').trim();
    current = [];
    if (text.split(' ').length >= 3) items.push(text);
  };
  let index = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((line, at) => at > 0 && line.trim() === '---');
    if (end > 0) index = end + 1;
  }
  let fence: string | null = null;
  for (; index < lines.length; index += 1) {
    const line = lines[index]!;
    const trimmed = line.trim();
    const fenceMark = /^(```|~~~)/.exec(trimmed)?.[1];
    if (fence !== null) {
      if (fenceMark === fence) fence = null;
      continue;
    }
    if (fenceMark) {
      flush();
      fence = fenceMark;
      continue;
    }
    if (trimmed === '' || /^#{1,6}\s/.test(trimmed) || /^([-*_])\1{2,}$/.test(trimmed) || trimmed.startsWith('|')) {
      flush();
      continue;
    }
    const bullet = /^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/.exec(trimmed);
    if (bullet) {
      flush();
      current.push(bullet[1]!);
      continue;
    }
    current.push(trimmed);
  }
  flush();
  return items;
}
