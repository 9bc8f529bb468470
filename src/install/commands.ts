import { MoonError } from '../errors.js';

import type { HookEvent } from '../hooks/events.js';

export type { HookEvent };

/** What an agent runs: this node binary and this package's bin/moon.js. */
export interface MoonCommandLine {
  nodePath: string;
  binPath: string;
}

/**
 * `"<node>" "<bin/moon.js>" hook <event>`: no shell syntax beyond double quotes, so the same line runs under
 * bash, zsh, sh and cmd.exe. A path holding a character a shell would still read inside double quotes
 * (`"`, `$`, `` ` ``, `%`) or a control character cannot be written safely, and is refused.
 */
export function renderHookCommand(line: MoonCommandLine, event: HookEvent): string {
  return `${quoteWord(line.nodePath)} ${quoteWord(line.binPath)} hook ${event}`;
}

/** The MCP server: the node binary with bin/moon.js and `mcp` as arguments (no shell involved). */
export function renderMcpCommand(line: MoonCommandLine): { command: string; args: string[] } {
  return { command: line.nodePath, args: [line.binPath, 'mcp'] };
}

function quoteWord(path: string): string {
  // eslint-disable-next-line no-control-regex
  if (/["$`%\u0000-\u001f\u007f]/.test(path)) {
    throw new MoonError('bad_input', `cannot write a hook command for the path ${JSON.stringify(path)}: it holds a character a shell would interpret`, {
      hint: 'install node and moon under a path without ", $, `, % or control characters',
    });
  }
  return `"${path}"`;
}

/** A hook command that runs moon: which bin/moon.js (null for a bare `moon` on PATH), which node, which event. */
export interface MoonHookCommand {
  nodePath: string | null;
  binPath: string | null;
  event: string;
}

/**
 * Recognise a command moon's installer wrote (or an older one did, from another path): `"<node>" "<…/moon.js>"
 * hook <event>`, the same unquoted, or a bare `moon hook <event>`. Anything else is not moon's.
 */
export function parseMoonHookCommand(command: string): MoonHookCommand | null {
  const words = splitWords(command.trim());
  if (!words) return null;
  const [first, second, third, fourth, ...rest] = words;
  if (rest.length > 0) return null;
  if (first !== undefined && isMoonLauncher(first) && second === 'hook' && third !== undefined && fourth === undefined) {
    return { nodePath: null, binPath: /\.js$/i.test(first) ? first : null, event: third };
  }
  if (first !== undefined && second !== undefined && isMoonScript(second) && third === 'hook' && fourth !== undefined) {
    return { nodePath: first, binPath: second, event: fourth };
  }
  return null;
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
