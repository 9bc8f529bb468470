import { findLongestBacktickRun } from '../text/backticks.js';

/**
 * Patch tool calls (apply_patch, Edit, MultiEdit, Write) arrive as the text src/sources/patch-text.ts renders:
 * `Update File: src/clock.ts` headers, then `- removed` / `+ added` lines. A projection shows them compactly:
 * the files touched as the call, and the first few changed lines as a fenced diff, so a reader sees what
 * changed without the whole patch.
 */

export type PatchOp = 'Add' | 'Update' | 'Delete';

export interface PatchFile {
  op: PatchOp;
  /** The path as the header states it, including a `→ new/path` move. */
  path: string;
}

export interface PatchCall {
  files: PatchFile[];
  /** Files the patch text itself left out (`… 3 more files`). */
  moreFiles: number;
  /** The first changed lines, with a file header line before each file's lines when several files changed. */
  lines: string[];
  /** Changed lines not in `lines`. */
  moreLines: number;
}

/** Changed lines shown per call and characters per line: enough to recognise the change, bounded for any patch. */
export const DIFF_LINES = 12;
export const DIFF_LINE_CHARS = 160;
/** Files named in a call line before `+N more`. */
export const CALL_FILES = 5;
/** Characters of the call text read: patch-text bounds its output, this bounds whatever else arrives. */
const READ_LIMIT = 65_536;

const HEADER = /^(Add|Update|Delete) File: (.+)$/;
const MORE_LINES = /^… (\d+) more lines?$/;
const MORE_FILES = /^… (\d+) more files?$/;

/** True when a call's text is a rendered patch: its first non-blank line is a file header. */
export function isPatchText(text: string): boolean {
  const first = /^\s*([^\n]*)/.exec(text.slice(0, 4096))?.[1] ?? '';
  return HEADER.test(first.trim());
}

/** The files and first changed lines of a rendered patch, or null when the text is not one. */
export function readPatchCall(text: string): PatchCall | null {
  if (!isPatchText(text)) return null;
  const source = text.length > READ_LIMIT ? text.slice(0, READ_LIMIT) : text;
  const call: PatchCall = { files: [], moreFiles: 0, lines: [], moreLines: 0 };
  const headers: string[] = [];
  const changes: { file: number; line: string }[] = [];
  for (const raw of source.split('\n')) {
    const line = raw.trimEnd();
    const header = HEADER.exec(line.trim());
    if (header) {
      call.files.push({ op: header[1] as PatchOp, path: (header[2] as string).trim() });
      headers.push(line.trim());
      continue;
    }
    const moreFiles = MORE_FILES.exec(line.trim());
    if (moreFiles) call.moreFiles += Number(moreFiles[1]);
    const moreLines = MORE_LINES.exec(line.trim());
    if (moreLines) call.moreLines += Number(moreLines[1]);
    if (call.files.length > 0 && (line.startsWith('-') || line.startsWith('+'))) changes.push({ file: call.files.length - 1, line });
  }
  const several = call.files.length > 1;
  let lastFile = -1;
  let shown = 0;
  for (const change of changes) {
    if (shown >= DIFF_LINES) {
      call.moreLines += 1;
      continue;
    }
    if (several && change.file !== lastFile) call.lines.push(headers[change.file] as string);
    lastFile = change.file;
    call.lines.push(clipLine(change.line));
    shown += 1;
  }
  return call;
}

/** One line, control characters as spaces, at most DIFF_LINE_CHARS code points. */
function clipLine(line: string): string {
  const flat = line.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029\t]/g, ' ');
  const chars = Array.from(flat.length > DIFF_LINE_CHARS * 2 ? flat.slice(0, DIFF_LINE_CHARS * 2) : flat);
  return chars.length <= DIFF_LINE_CHARS ? flat : `${chars.slice(0, DIFF_LINE_CHARS - 1).join('').trimEnd()}…`;
}

/** `Update src/clock.ts, Add test/clock.test.ts +2 more files`: the call as the files it touches. */
export function describePatchFiles(call: PatchCall): string {
  const named = call.files.slice(0, CALL_FILES).map((file) => `${file.op} ${file.path}`);
  const more = call.files.length - named.length + call.moreFiles;
  return more > 0 ? `${named.join(', ')} +${more} more file${more === 1 ? '' : 's'}` : named.join(', ');
}

/**
 * The changed lines as a ```diff block, indented by `indent` so it stays inside a list item. The fence is
 * longer than any backtick run in the lines, so code that contains fences cannot close it early.
 */
export function renderDiffBlock(call: PatchCall, indent = '  '): string[] {
  if (call.lines.length === 0) return [];
  let longest = 0;
  for (const line of call.lines) longest = Math.max(longest, findLongestBacktickRun(line));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = call.lines.map((line) => `${indent}${line}`);
  const more = call.moreLines > 0 ? [`${indent}… ${call.moreLines} more changed line${call.moreLines === 1 ? '' : 's'}`] : [];
  return [`${indent}${fence}diff`, ...body, ...more, `${indent}${fence}`];
}
