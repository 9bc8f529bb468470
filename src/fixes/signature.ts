/**
 * Error signatures: an error text reduced to what stays the same each time the error recurs. Paths, numbers,
 * hashes, line/column numbers, temp names, addresses, UUIDs and timestamps go; the error class, the stable words
 * and quoted identifiers (`reading 'map'`, `'foo'`) stay — they tell one TypeError from another. Pure: no I/O.
 */

/** Lines that name an error, in the shapes compilers, runtimes and tools print them. First match wins per line. */
const ERROR_LINE_PATTERNS: readonly RegExp[] = [
  /\berror\s+TS\d{3,5}\b/i, // tsc: src/a.ts(3,5): error TS2345: …
  /^\s*TS\d{3,5}:/, // TS2345: …
  /^\s*error(\[E\d{4}\])?:/, // rustc / cargo, gcc
  /^\s*panic:/, // go
  /^\s*fatal:/, // git
  /^\s*npm (ERR!|error) (code )?E[A-Z]{3,}\b/, // npm ERR! code ERESOLVE
  /^\s*npm (ERR!|error) Missing script\b/,
  /^\s*ERROR:/, // pip
  /^\s*(\w+\.)*[A-Z]\w*(Error|Exception|Failure|Fault)\b:?/, // Node, Python, Java: TypeError: …, ModuleNotFoundError: …
  /:\s*command not found\b/, // bash: foo: command not found
  /\bcommand not found:/, // zsh: command not found: foo
  /^\s*(FAIL|FAILED)\b/, // test runners
  /\bNo such file or directory\b/,
  /\bPermission denied\b/,
];

/** Lines that are context, not the error: stack frames, tracebacks' file lines, npm's log pointers. */
const NOISE_LINE = /^\s*(at\s|File "|Traceback \(most recent call last\)|npm (ERR!|error) (A complete log|\s*$)|-->|\||=\s*note:)/;

/** Longer lines are data (minified code, JSON dumps), not error messages. */
const MAX_LINE_CHARS = 2000;
/** At most this many signatures from one text (a test run can print dozens of the same failure). */
const MAX_SIGNATURES = 3;
/** Characters of a signature kept: enough to tell errors apart, short enough to index and show. */
const MAX_SIGNATURE_CHARS = 160;

/**
 * The signatures of the errors a text reports, most telling first, deduplicated. Python tracebacks put the
 * exception last; every other shape here puts it first, so lines are read in order and a traceback's final
 * exception line is picked up like any other.
 */
export function extractErrorSignatures(text: string): string[] {
  const found: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const line of lines) {
    if (line.length > MAX_LINE_CHARS || NOISE_LINE.test(line)) continue;
    if (!ERROR_LINE_PATTERNS.some((pattern) => pattern.test(line))) continue;
    const signature = normalizeErrorSignature(line);
    if (signature.length < 4 || isGeneric(signature) || found.includes(signature)) continue;
    found.push(signature);
    if (found.length >= MAX_SIGNATURES) break;
  }
  return found;
}

/** Lines that say only that something failed, not what: `npm error code 1`, `FAIL`, `error: could not compile`. */
function isGeneric(signature: string): boolean {
  return /^(npm (err!|error) (code <n>|errno <n>|command failed|a complete log.*|lifecycle.*|path <path>|command sh -c.*)|fail(ed)?|error:? ?|error: could not compile .*|error: aborting due to .*)$/i.test(signature);
}

/** One error line, normalised. Two lines that differ only in paths, numbers, ids and times normalise alike. */
export function normalizeErrorSignature(line: string): string {
  // Only the start of a line can name the error; a bounded input keeps every pass below linear enough.
  let text = line.trim().slice(0, MAX_LINE_CHARS);
  // Quoted identifiers are the stable part of a message: take them out before anything below can touch them.
  const quoted: string[] = [];
  text = text.replace(/(['"`‘’“”])([^'"`‘’“”\n]{1,80})\1|‘([^’\n]{1,80})’|“([^”\n]{1,80})”/g, (match, _q: string, inner?: string, curly1?: string, curly2?: string) => {
    const value = inner ?? curly1 ?? curly2 ?? match;
    quoted.push(`'${normalizeQuoted(value)}'`);
    return placeholder(quoted.length - 1);
  });
  text = text
    // The shell that reports a missing command, by name: `/bin/bash: line 3: foo` is `bash: foo`.
    .replace(/^(?:\S*\/)?(bash|sh|zsh|dash|fish|ksh):\s+(?:line \d+:\s+)?/, '$1: ')
    // pip's list of the versions it found says nothing about the error.
    .replace(/\(from versions: [^)]*\)/, '(from versions: …)')
    // A tsc location prefix (src/a.ts(3,5): error TS…) and a leading path:line:col: go.
    .replace(/^\S*\(\d+,\d+\):\s*/, '')
    .replace(/^(?:[A-Za-z]:)?[\w./\\@~-]*[/\\.][\w./\\@~-]*:\d+(?::\d+)?:?\s*/, '')
    // tsc --pretty: `src/env.ts:4:7 - error TS2339: …` leaves the dash.
    .replace(/^-\s+(?=error\b)/, '')
    // Times and dates before numbers.
    .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>')
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<date>')
    .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<time>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<addr>')
    // URLs, then paths: absolute, home, relative with a slash, Windows; with any :line:col after them.
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)'"]+/gi, '<url>')
    .replace(/(?:[A-Za-z]:\\|~\/|\.{1,2}\/|\/)[^\s:'"(),\]]*(?::\d+)*(?::)?/g, (match) => (match.endsWith(':') ? '<path>:' : '<path>'))
    .replace(/\b[\w.-]+(?:\/[\w.@-]+)+(?::\d+)*/g, '<path>')
    .replace(/\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|rb|c|h|cc|cpp|json|toml|yaml|yml|lock|md|sh)\b(?::\d+)*/g, '<path>')
    // Temp names (tmp-1234-abc, /tmp/…, tmpab12cd) and long hex runs (commit hashes, digests).
    .replace(/\btmp[\w-]*\b/gi, '<tmp>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/gi, '<hash>')
    // Line/column words and any remaining number.
    .replace(/\b(line|column|col|ln|row)\s+\d+/gi, '$1 <n>')
    .replace(/(?<![A-Za-z0-9\uE000-\uE1FF])\d+(\.\d+)*(?![A-Za-z0-9])/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
  text = text.replace(/\uE000([\uE100-\uE1FF])\uE000/g, (_m, mark: string) => quoted[mark.charCodeAt(0) - 0xe100] ?? '');
  text = text.replace(/(<path>)(?:\s*<path>)+/g, '$1').replace(/(<n>)(?:[:,]<n>)+/g, '$1');
  return text.length > MAX_SIGNATURE_CHARS ? text.slice(0, MAX_SIGNATURE_CHARS).trimEnd() : text;
}

/** Inside quotes only what identifies: a quoted path or number is as variable as an unquoted one. */
function normalizeQuoted(value: string): string {
  if (/^[\s\d.:,-]+$/.test(value)) return '<n>';
  if (/[/\\]/.test(value) && !/\s/.test(value)) {
    if (/\.\w{1,5}$/.test(value)) return '<path>';
    // A module path keeps its package part: './utils' and '../utils' are the same import, `lodash/fp` is not a file.
    return value.startsWith('.') || value.startsWith('/') || /^[A-Za-z]:\\/.test(value) ? '<path>' : value;
  }
  if (/^[0-9a-f]{7,64}$/i.test(value)) return '<hash>';
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}

/** A stand-in for the quoted value at `index` that no pass above can match (private-use characters). */
function placeholder(index: number): string {
  return `\uE000${String.fromCharCode(0xe100 + Math.min(index, 0xff))}\uE000`;
}
