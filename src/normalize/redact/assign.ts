import { isPlaceholder, marker } from './common.js';

/**
 * Assignments whose key names a secret: KEY=value, KEY: value, export KEY="value", "api_key": "value",
 * --password=value.
 *
 * Only the key and separator are matched; the value is read by hand afterwards. Consuming the value in the
 * regex would hide assignments nested inside a non-secret value (`"cmd": "mysql --password=…"`), and re-scanning
 * every rejected value would make `a=a=a=…` quadratic.
 */
const ASSIGNMENT_HEAD = /(?<![\w.$])(?:export[ \t]+)?((?:\\?["'])?)([A-Za-z_][\w.-]{0,80})\1[ \t]*(=(?!=)|:(?!:))[ \t]*/g;
const DOUBLE_QUOTED = /"(?:[^"\\\n]|\\.){0,1024}"/y;
/** JSON inside a JSON string: `{\"apiKey\": \"…\"}`. */
const ESCAPED_QUOTED = /\\"[^"\\\n]{0,1024}\\"/y;
const SINGLE_QUOTED = /'[^'\n]{0,1024}'/y;
/** An unquoted value ends at whitespace, a quote, `&`, or a JSON escape of a line break (`\\n` in escaped text). */
const UNQUOTED = /(?:[^\s'"`&\\]|\\(?![ntr])){1,256}/y;
/** Once an unquoted value is judged secret, the rest of it goes too, however long. */
const UNQUOTED_REST = /(?:[^\s'"`&\\]|\\(?![ntr]))*/y;

export function redactAssignments(text: string): string {
  if (!text.includes('=') && !text.includes(':')) return text;
  let out = '';
  let from = 0;
  ASSIGNMENT_HEAD.lastIndex = 0;
  for (let head = ASSIGNMENT_HEAD.exec(text); head; head = ASSIGNMENT_HEAD.exec(text)) {
    const headEnd = head.index + head[0].length;
    const key = head[2] ?? '';
    const kind = secretKind(key);
    const value = kind === null ? null : readValue(text, headEnd);
    const separator = head[3] === ':' ? ':' : '=';
    if (kind === null || value === null || !isSecretValue(value.core, { quoted: value.quote !== '', key, separator })) {
      // Let the scan continue inside the value: it may hold an assignment of its own.
      ASSIGNMENT_HEAD.lastIndex = Math.max(headEnd, head.index + 1);
      continue;
    }
    let end = value.end;
    if (value.quote === '') {
      UNQUOTED_REST.lastIndex = end;
      UNQUOTED_REST.exec(text);
      end = trimSyntaxTail(text, headEnd, UNQUOTED_REST.lastIndex);
    }
    out += text.slice(from, headEnd) + value.quote + marker(kind) + value.quote;
    from = end + value.quote.length;
    ASSIGNMENT_HEAD.lastIndex = from;
  }
  return out + text.slice(from);
}

interface AssignedValue {
  /** The value without quotes and without trailing syntax. */
  core: string;
  quote: '' | '"' | "'" | '\\"';
  /** Index just past the core (before any closing quote). */
  end: number;
}

function readValue(text: string, at: number): AssignedValue | null {
  const first = text[at];
  if (first === '\\' && text[at + 1] === '"') {
    ESCAPED_QUOTED.lastIndex = at;
    const match = ESCAPED_QUOTED.exec(text);
    if (!match) return null;
    return { core: match[0].slice(2, -2), quote: '\\"', end: at + match[0].length - 2 };
  }
  if (first === '"' || first === "'") {
    const pattern = first === '"' ? DOUBLE_QUOTED : SINGLE_QUOTED;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) return null;
    return { core: match[0].slice(1, -1), quote: first, end: at + match[0].length - 1 };
  }
  UNQUOTED.lastIndex = at;
  const match = UNQUOTED.exec(text);
  if (!match) return null;
  const end = trimSyntaxTail(text, at, at + match[0].length);
  return end > at ? { core: text.slice(at, end), quote: '', end } : null;
}

/** Trailing `,;)]}` belongs to the surrounding syntax (`key=abc123,` or `(token=abc123)`), not the value. */
function trimSyntaxTail(text: string, start: number, end: number): number {
  let stop = end;
  while (stop > start && ',;)]}'.includes(text[stop - 1] ?? '')) stop--;
  return stop;
}

/**
 * Key names that hold secrets, compared in UPPER_SNAKE form so `apiKey`, `api-key` and `API_KEY` agree.
 * `PWD` alone is the shell's working directory; `DB_PWD` is a password.
 */
const SECRET_KEY_NAME = /(?:^|_)(?:PASSWORD|PASSWD|PASSPHRASE|PASS|SECRET|TOKEN|APIKEY|CREDENTIALS?)$|_PWD$|_KEY$/;
/** `*_KEY` / `*_TOKEN` names that are identifiers, sizes or cursors, not credentials. */
const NOT_SECRET_KEY_NAME = new RegExp(
  '(?:^|_)(?:PRIMARY|FOREIGN|SORT|PARTITION|CACHE|PUBLIC|ROUTING|LOOKUP|IDEMPOTENCY|MAX|MIN|NUM|NEXT|PAGE|' +
    'CONTINUATION|CURSOR|HOT|SHORTCUT|MAP|GROUP|DEDUP|UNIQUE|OBJECT|HASH|SHARD|INDEX|I18N|TRANSLATION)_(?:KEY|TOKEN)$',
);

/** Cheap first test: most keys (`type`, `id`, `name`) name nothing secret. */
const SECRET_WORD = /pass|pwd|secret|token|key|credential/i;

function secretKind(key: string): string | null {
  if (!SECRET_WORD.test(key)) return null;
  // A member's own name decides: `config.apiKey` names a key, `item.key` and `this.keyName` do not.
  const name = (key.split('.').pop() ?? key)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toUpperCase();
  if (!SECRET_KEY_NAME.test(name) || NOT_SECRET_KEY_NAME.test(name)) return null;
  if (/SECRET_ACCESS_KEY$/.test(name)) return 'aws-secret-key';
  if (/PASS(?:WORD|WD|PHRASE)?$|_PWD$/.test(name)) return 'password';
  return 'secret';
}

interface ValueContext {
  quoted: boolean;
  key: string;
  separator: ':' | '=';
}

/** Decide whether an assigned value is a literal secret rather than a reference, a type or a placeholder. */
function isSecretValue(value: string, context: ValueContext): boolean {
  if (isPlaceholder(value)) return false;
  // Small numbers are limits and counts (`MAX_TOKEN=4096`), not credentials.
  if (/^\d{1,7}$/.test(value)) return false;
  if (context.quoted) return true;
  // Member chains and calls are code: `process.env.API_KEY`, `os.environ[`, `getToken()`.
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || /^[A-Za-z_$][\w$.]*[([]/.test(value)) return false;
  if (/^[A-Za-z_$][\w$]*$/.test(value) && !/\d/.test(value)) {
    // A bare word: `password: string` is a type, `token = token` a variable; only an env-style
    // `UPPER_KEY=word` line treats it as the value.
    return context.separator === '=' && context.key === context.key.toUpperCase();
  }
  return true;
}
