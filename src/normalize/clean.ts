import { unescapeJsonNoise } from './unescape.js';

/**
 * Turn raw transcript text into what a person reads: escape noise decoded, terminal control codes gone,
 * agent-injected wrappers removed, whitespace tidied. Deterministic and safe on megabyte-sized tool outputs:
 * every pattern here is linear, and block removal scans with indexOf instead of lazy `[\s\S]*?` regexes
 * (which go quadratic when an opening tag has no closing one).
 */
export function cleanText(text: string): string {
  let out = unescapeJsonNoise(text);
  out = normalizeLineBreaks(out);
  out = stripTerminalCodes(out);
  out = removeInjectedBlocks(out);
  out = tidyWhitespace(out);
  return out;
}

function normalizeLineBreaks(text: string): string {
  // A lone CR (progress bars, old Mac files) becomes a line break rather than gluing two lines together.
  return text.replace(/\r\n?/g, '\n');
}

/** CSI (`ESC [ … final`, also the 8-bit 0x9B form), OSC (`ESC ] … BEL|ST`, e.g. hyperlinks), 2-byte ESC codes. */
const ANSI_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
/** C0 and C1 controls except \n and \t, plus DEL and the byte-order mark. */
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]/g;

function stripTerminalCodes(text: string): string {
  return text.replace(ANSI_SEQUENCE, '').replace(CONTROL_CHARS, '');
}

/** Wrappers whose whole content is agent plumbing, not something the user or the agent said. */
const DROPPED_BLOCKS: readonly (readonly [string, string])[] = [
  ['<system-reminder>', '</system-reminder>'],
  // Claude Code slash commands repeat the command name here; <command-name> keeps it once.
  ['<command-message>', '</command-message>'],
  // Boilerplate before `!` shell commands and local slash commands: "Caveat: The messages below were generated…".
  ['<local-command-caveat>', '</local-command-caveat>'],
];
/**
 * Wrappers around real content: the tags go, the text inside stays — slash commands (`/review src`), the output of
 * local commands, and what the user ran with `!` in Claude Code (`<bash-input>`, `<bash-stdout>`, `<bash-stderr>`).
 * `</command-name>` becomes a space so a name and its arguments written without a break stay two words.
 */
const UNWRAPPED_TAGS =
  /<\/?(?:local-command-(?:stdout|stderr)|command-args|command-contents|bash-(?:input|stdout|stderr))>|<command-name>/g;
const COMMAND_NAME_END = /<\/command-name>/g;
const COMMAND_CONTENTS: readonly [string, string] = ['<command-contents>', '</command-contents>'];

function removeInjectedBlocks(text: string): string {
  let out = text;
  for (const [open, close] of DROPPED_BLOCKS) out = replaceDelimited(out, open, close, () => '');
  out = replaceDelimited(out, COMMAND_CONTENTS[0], COMMAND_CONTENTS[1], readCommandContents);
  out = out.replace(COMMAND_NAME_END, ' ').replace(UNWRAPPED_TAGS, '');
  return removeUntrustedMetadata(out);
}

/**
 * A slash command's expanded body. Some versions wrote it as JSON (`{"text": "…"}`): the text inside is what the
 * command said, so it is taken out of its envelope and escapes.
 */
function readCommandContents(inner: string): string {
  const trimmed = inner.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (value !== null && typeof value === 'object' && typeof (value as { text?: unknown }).text === 'string') {
        return `\n${(value as { text: string }).text}\n`;
      }
    } catch {
      // Not JSON after all: keep it as written.
    }
  }
  return `\n${inner}\n`;
}

/**
 * Replace every `open … close` span by what `replace` makes of its inner text. An opening tag without a closing
 * one is left alone.
 */
function replaceDelimited(text: string, open: string, close: string, replace: (inner: string) => string): string {
  let start = text.indexOf(open);
  if (start < 0) return text;
  let out = '';
  let from = 0;
  while (start >= 0) {
    const end = text.indexOf(close, start + open.length);
    if (end < 0) break;
    out += text.slice(from, start) + replace(text.slice(start + open.length, end));
    from = end + close.length;
    start = text.indexOf(open, from);
  }
  return out + text.slice(from);
}

/**
 * OpenClaw prefixes channel messages with labelled JSON blocks, e.g.
 *   Conversation info (untrusted metadata):
 *   ```json
 *   { "message_id": "10285", "sender": "1801759510" }
 *   ```
 * (also `Sender (untrusted metadata):`, sometimes after a `[Wed 2026-03-11 23:51 PDT]` prefix). They are routing
 * metadata, not what the person wrote. Blocks labelled `(untrusted, for context)` carry quoted conversation
 * and are kept.
 */
const UNTRUSTED_LABEL = new RegExp(
  // optional [timestamp] prefix, the label, then the opening fence on the next line
  '^[^\\S\\n]*(?:\\[[^\\]\\n]{1,80}\\][^\\S\\n]*)?[^\\n()`]{1,80}\\(untrusted metadata\\):[^\\S\\n]*\\n[^\\S\\n]*```[^\\n]*\\n',
  'gm',
);

function removeUntrustedMetadata(text: string): string {
  if (!text.includes('(untrusted metadata):')) return text;
  let out = '';
  let from = 0;
  UNTRUSTED_LABEL.lastIndex = 0;
  for (let match = UNTRUSTED_LABEL.exec(text); match; match = UNTRUSTED_LABEL.exec(text)) {
    if (match.index < from) continue;
    const bodyStart = match.index + match[0].length;
    const fence = findClosingFence(text, bodyStart);
    if (fence < 0) break;
    out += text.slice(from, match.index);
    from = fence;
    UNTRUSTED_LABEL.lastIndex = fence;
  }
  return out + text.slice(from);
}

/** Index just past the line holding the closing ``` fence, or -1 when the fence never closes. */
function findClosingFence(text: string, bodyStart: number): number {
  let lineStart = bodyStart;
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf('\n', lineStart);
    const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
    if (line.trim() === '```') return lineEnd < 0 ? text.length : lineEnd + 1;
    if (lineEnd < 0) return -1;
    lineStart = lineEnd + 1;
  }
  return -1;
}

function tidyWhitespace(text: string): string {
  // Per-line trimEnd instead of /[ \t]+$/gm: that regex backtracks quadratically on long runs of inner spaces.
  const lines = text.split('\n').map((line) => line.trimEnd());
  // At most one blank line in a row: wider gaps are layout noise from stripped blocks and tool output.
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
