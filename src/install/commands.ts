import { MoonError } from '../errors.js';

import type { HookEvent } from '../hooks/events.js';

export type { HookEvent };

/**
 * What an agent runs: this node binary and this package's bin/moon.js (both null: a bare `moon` found on PATH, the
 * portable form a project's shared files carry), and the moon home to name with `--home` (null: the default,
 * named nowhere, so the common line stays short).
 */
export interface MoonCommandLine {
  nodePath: string | null;
  binPath: string | null;
  home: string | null;
}

/**
 * `"<node>" "<bin/moon.js>" [--home "<dir>"] hook <event>`, or `moon [--home "<dir>"] hook <event>`: no shell
 * syntax beyond double quotes, so the same line runs under bash, zsh, sh and cmd.exe. A path holding a character a
 * shell would still read inside double quotes (`"`, `$`, `` ` ``, `%`) or a control character cannot be written
 * safely, and is refused.
 */
export function renderHookCommand(line: MoonCommandLine, event: HookEvent): string {
  const home = line.home === null ? [] : ['--home', quoteWord(line.home, 'moon home')];
  const launcher = line.nodePath !== null && line.binPath !== null ? [quoteWord(line.nodePath, 'path'), quoteWord(line.binPath, 'path')] : ['moon'];
  return [...launcher, ...home, 'hook', event].join(' ');
}

/** The MCP server: the node binary with bin/moon.js (or `moon` on PATH), `--home` when named, and `mcp` (no shell involved). */
export function renderMcpCommand(line: MoonCommandLine): { command: string; args: string[] } {
  const [command, ...rest] = launcherWords(line);
  return { command: command!, args: [...rest, ...(line.home === null ? [] : ['--home', line.home]), 'mcp'] };
}

function launcherWords(line: MoonCommandLine): string[] {
  return line.nodePath !== null && line.binPath !== null ? [line.nodePath, line.binPath] : ['moon'];
}

function quoteWord(path: string, what: 'path' | 'moon home'): string {
  // eslint-disable-next-line no-control-regex
  if (/["$`%\u0000-\u001f\u007f]/.test(path)) {
    throw new MoonError('bad_input', `cannot write a hook command for the ${what} ${JSON.stringify(path)}: it holds a character a shell would interpret`, {
      hint: what === 'path' ? 'install node and moon under a path without ", $, `, % or control characters' : 'use a moon home (MOON_HOME, --home) whose path has no ", $, `, % or control characters',
    });
  }
  return `"${path}"`;
}

/** A hook command that runs moon: which bin/moon.js (null for a bare `moon` on PATH), which node, which home, which event. */
export interface MoonHookCommand {
  nodePath: string | null;
  binPath: string | null;
  /** The home named with `--home` (as written); null: none, the agent's MOON_HOME or the default. */
  home: string | null;
  event: string;
}

/**
 * Recognise a command moon's installer wrote (or an older one did, from another path): `"<node>" "<…/moon.js>"
 * [--home "<dir>"] hook <event>`, the same unquoted, or a bare `moon [--home "<dir>"] hook <event>`. Anything
 * else is not moon's.
 */
export function parseMoonHookCommand(command: string): MoonHookCommand | null {
  const words = splitWords(command.trim());
  if (!words || words[0] === undefined) return null;
  let launcher: { nodePath: string | null; binPath: string | null };
  let rest: string[];
  if (words[1] !== undefined && isMoonScript(words[1])) {
    launcher = { nodePath: words[0], binPath: words[1] };
    rest = words.slice(2);
  } else if (isMoonLauncher(words[0])) {
    launcher = { nodePath: null, binPath: /\.js$/i.test(words[0]) ? words[0] : null };
    rest = words.slice(1);
  } else {
    return null;
  }
  const options = takeHome(rest);
  if (!options) return null;
  const [verb, event, ...extra] = options.words;
  if (verb !== 'hook' || event === undefined || extra.length > 0) return null;
  return { ...launcher, home: options.home, event };
}

/**
 * The home an MCP server entry gives moon: `--home` in its arguments, else `MOON_HOME` in its `env` (an entry
 * written by hand), else null; and its arguments without the `--home` option, to compare launchers.
 */
export function readServerHome(value: { args?: unknown; env?: unknown }): { args: string[]; home: string | null } {
  const args = Array.isArray(value.args) ? value.args.map(String) : [];
  const options = takeHome(args) ?? { words: args, home: null };
  const env = value.env !== null && typeof value.env === 'object' ? (value.env as Record<string, unknown>).MOON_HOME : undefined;
  return { args: options.words, home: options.home ?? (typeof env === 'string' && env.trim() !== '' ? env : null) };
}

/** `--home DIR` or `--home=DIR` taken out of `words` (null when it is given twice or without a value). */
function takeHome(words: readonly string[]): { words: string[]; home: string | null } | null {
  const rest: string[] = [];
  let home: string | null = null;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    let value: string | undefined;
    if (word === '--home') {
      value = words[index + 1];
      index += 1;
    } else if (word.startsWith('--home=')) {
      value = word.slice('--home='.length);
    } else {
      rest.push(word);
      continue;
    }
    if (value === undefined || value === '' || home !== null) return null;
    home = value;
  }
  return { words: rest, home };
}

function isMoonScript(word: string): boolean {
  return /(^|[\\/])moon\.js$/i.test(word);
}

function isMoonLauncher(word: string): boolean {
  return /(^|[\\/])moon(\.cmd|\.exe|\.js)?$/i.test(word);
}

/** Words of a command line: double-quoted words or runs without spaces; null when a quote is left open. */
function splitWords(text: string): string[] | null {
  const words: string[] = [];
  let index = 0;
  while (index < text.length) {
    if (text[index] === ' ' || text[index] === '\t') {
      index += 1;
      continue;
    }
    if (text[index] === '"') {
      const end = text.indexOf('"', index + 1);
      if (end < 0) return null;
      words.push(text.slice(index + 1, end));
      index = end + 1;
      continue;
    }
    let end = index;
    while (end < text.length && text[end] !== ' ' && text[end] !== '\t') end += 1;
    words.push(text.slice(index, end));
    index = end;
  }
  return words;
}
