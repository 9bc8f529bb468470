import { MoonError } from '../errors.js';

/**
 * Secret redaction: every match becomes `[REDACTED:kind]`. Rules run from most to least specific, so a key
 * inside an assignment (`OPENAI_API_KEY=sk-…`) keeps its precise kind. Properties the tests pin:
 * - idempotent: a value that already is (or contains) a `[REDACTED:…]` marker is never redacted again;
 * - linear: every quantifier is bounded or runs over disjoint character classes, and the block and assignment
 *   scans only move forward, so a 1 MB line costs a few passes per rule (the tests time hostile inputs);
 * - quiet on prose, git SHAs, UUIDs, code references (`process.env.API_KEY`) and placeholders (`${VAR}`).
 */

export interface RedactorOptions {
  enabled: boolean;
  /** Regex sources; every match becomes `[REDACTED:custom]`. */
  extraPatterns?: string[];
}

export type Redactor = (text: string) => string;

export function createRedactor(options: RedactorOptions): Redactor {
  const custom = compileExtraPatterns(options.extraPatterns ?? []);
  if (!options.enabled) return (text) => text;
  return (text) => {
    let out = redactPrivateKeys(text);
    for (const rule of TOKEN_RULES) out = out.replace(rule.pattern, (match) => applyRule(rule, match));
    out = redactUrlPasswords(out);
    out = redactAuthorization(out);
    out = redactAssignments(out);
    for (const pattern of custom) out = out.replace(pattern, (match) => (match === '' ? match : marker('custom')));
    return out;
  };
}

function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Invalid user patterns fail loudly at startup, naming the pattern, rather than silently redacting nothing. */
function compileExtraPatterns(sources: readonly string[]): RegExp[] {
  return sources.map((source) => {
    try {
      return new RegExp(source, 'g');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new MoonError('bad_config', `invalid redaction pattern ${JSON.stringify(source)}: ${reason}`, {
        hint: 'privacy.extra_patterns takes JavaScript regular expression sources',
        cause: error,
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------------------
// PEM private keys: the whole block, BEGIN to END.

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY-----/g;
const PEM_END = /-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY-----/g;
/**
 * Body of a key whose END line is missing (truncated tool output): base64 lines and the `Proc-Type`/`DEK-Info`
 * headers of encrypted keys, with real or JSON-escaped (`\n`) line breaks. Every repetition consumes line breaks
 * and then key material, so the scan is linear and stops before the first line that is not part of the key.
 */
const PEM_LINE_BREAK = '[ \\t]*(?:\\\\r)?(?:\\\\n|\\n)';
const PEM_BASE64_LINE = `[A-Za-z0-9+/=]+(?=${PEM_LINE_BREAK}|[ \\t]*$)`;
const PEM_HEADER_LINE = '(?:Proc-Type|DEK-Info): [^\\n\\\\]{0,200}';
const PEM_BODY = new RegExp(
  `[ \\t]*(?:${PEM_BASE64_LINE})?(?:(?:${PEM_LINE_BREAK})+[ \\t]*(?:${PEM_BASE64_LINE}|${PEM_HEADER_LINE}))*`,
  'y',
);

function redactPrivateKeys(text: string): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  let out = '';
  let from = 0;
  let endsLeft = true;
  PEM_BEGIN.lastIndex = 0;
  PEM_END.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    const afterBegin = begin.index + begin[0].length;
    // END markers are searched monotonically, and once none is left no later BEGIN can have one: linear.
    let end: RegExpExecArray | null = null;
    if (endsLeft) {
      PEM_END.lastIndex = afterBegin;
      end = PEM_END.exec(text);
      endsLeft = end !== null;
    }
    let stop: number;
    if (end) {
      stop = end.index + end[0].length;
    } else {
      PEM_BODY.lastIndex = afterBegin;
      PEM_BODY.exec(text);
      stop = PEM_BODY.lastIndex;
    }
    out += text.slice(from, begin.index) + marker('private-key');
    from = stop;
    PEM_BEGIN.lastIndex = stop;
  }
  return out + text.slice(from);
}

// ---------------------------------------------------------------------------------------------------------
// Provider tokens recognisable by their prefix.

interface TokenRule {
  kind: string;
  pattern: RegExp;
  /** Extra check on the match, for prefixes that also start ordinary words (`sk-learn-estimators`). */
  accept?: (match: string) => boolean;
}

/** Start of a token: not glued to a preceding token character. */
const B = '(?<![A-Za-z0-9_-])';
/** End of a token: not followed by more token characters (keeps partial matches out). */
const E = '(?![A-Za-z0-9_-])';

const TOKEN_RULES: readonly TokenRule[] = [
  { kind: 'anthropic-key', pattern: re(`${B}sk-ant-[A-Za-z0-9_-]{20,}`), accept: looksRandom },
  { kind: 'openai-key', pattern: re(`${B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), accept: looksRandom },
  { kind: 'stripe-key', pattern: re(`${B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}${E}`) },
  { kind: 'github-token', pattern: re(`${B}(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}${E}`) },
  { kind: 'github-token', pattern: re(`${B}github_pat_[A-Za-z0-9_]{22,}${E}`) },
  { kind: 'aws-access-key', pattern: re(`(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])`) },
  { kind: 'slack-token', pattern: re(`${B}xox[abprs]-[A-Za-z0-9-]{10,}${E}`) },
  { kind: 'google-api-key', pattern: re(`${B}AIza[A-Za-z0-9_-]{35}${E}`) },
  { kind: 'jwt', pattern: re(`${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}${E}`) },
];

function re(source: string): RegExp {
  return new RegExp(source, 'g');
}

function applyRule(rule: TokenRule, match: string): string {
  return rule.accept && !rule.accept(match) ? match : marker(rule.kind);
}

/**
 * Generated secrets mix digits with letters; words joined by hyphens (`sk-learn-compatible-estimators`,
 * `Bearer authentication`) do not.
 */
function looksRandom(token: string): boolean {
  const hasDigit = /[0-9]/.test(token);
  const hasUpper = /[A-Z]/.test(token);
  const hasLower = /[a-z]/.test(token);
  return hasDigit ? hasUpper || hasLower : hasUpper && hasLower && token.length >= 20;
}

// ---------------------------------------------------------------------------------------------------------
// Passwords in URLs: scheme://user:PASSWORD@host keeps user and host.

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:/@]{0,256}):([^\s/@]{1,256})@/gi;

function redactUrlPasswords(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_CREDENTIALS, (match, scheme: string, user: string, password: string) =>
    isPlaceholder(password) ? match : `${scheme}${user}:${marker('password')}@`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Authorization headers and bearer tokens.

const TOKEN_CHARS = '[A-Za-z0-9._~+/=-]{8,4096}';
const AUTH_HEADER = new RegExp(
  `(\\bAuthorization["']?[ \\t]*[:=][ \\t]*["']?)(?:(Bearer|Basic|Token|Bot|Digest)[ \\t]+)?(${TOKEN_CHARS})`,
  'gi',
);
const BEARER = new RegExp(`(\\bBearer[ \\t]+)(${TOKEN_CHARS})`, 'g');

function redactAuthorization(text: string): string {
  let out = text;
  if (/authorization/i.test(out)) {
    out = out.replace(AUTH_HEADER, (match, prefix: string, scheme: string | undefined, token: string) => {
      // With a scheme the header context is strong enough; a bare value must look generated.
      if (isPlaceholder(token) || (scheme === undefined && !looksRandom(token))) return match;
      return `${prefix}${scheme ? `${scheme} ` : ''}${marker('bearer')}`;
    });
  }
  if (out.includes('Bearer')) {
    out = out.replace(BEARER, (match, prefix: string, token: string) =>
      isPlaceholder(token) || !looksRandom(token) ? match : `${prefix}${marker('bearer')}`,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Assignments whose key names a secret: KEY=value, KEY: value, export KEY="value", "api_key": "value".

/**
 * Only the key and separator are matched; the value is read by hand afterwards. Consuming the value in the
 * regex would hide assignments nested inside a non-secret value (`"cmd": "mysql --password=…"`), and re-scanning
 * every rejected value would make `a=a=a=…` quadratic.
 */
const ASSIGNMENT_HEAD = /(?<![\w.$])(?:export[ \t]+)?(["']?)([A-Za-z_][\w.-]{0,80})\1[ \t]*(=(?!=)|:(?!:))[ \t]*/g;
const DOUBLE_QUOTED = /"(?:[^"\\\n]|\\.){0,1024}"/y;
const SINGLE_QUOTED = /'[^'\n]{0,1024}'/y;
const UNQUOTED = /[^\s'"`&]{1,256}/y;
/** Once an unquoted value is judged secret, the rest of it goes too, however long. */
const UNQUOTED_REST = /[^\s'"`&]*/y;

function redactAssignments(text: string): string {
  let out = '';
  let from = 0;
  ASSIGNMENT_HEAD.lastIndex = 0;
  for (let head = ASSIGNMENT_HEAD.exec(text); head; head = ASSIGNMENT_HEAD.exec(text)) {
    const headEnd = head.index + head[0].length;
    const key = head[2] ?? '';
    const kind = secretKind(key);
    const value = kind === null ? null : readValue(text, headEnd);
    if (kind === null || value === null) {
      // Let the scan continue inside the value: it may hold an assignment of its own.
      ASSIGNMENT_HEAD.lastIndex = Math.max(headEnd, head.index + 1);
      continue;
    }
    const separator = head[3] === ':' ? ':' : '=';
    if (!isSecretValue(value.core, { quoted: value.quote !== '', key, separator })) {
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
  quote: '' | '"' | "'";
  /** Index just past the core (before any closing quote). */
  end: number;
}

function readValue(text: string, at: number): AssignedValue | null {
  const first = text[at];
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

/** Key names that hold secrets, compared in UPPER_SNAKE form so `apiKey`, `api-key` and `API_KEY` agree. */
const SECRET_KEY_NAME = /(?:^|_)(?:PASSWORD|PASSWD|PASSPHRASE|PASS|SECRET|TOKEN|APIKEY|CREDENTIALS?)$|_KEY$/;
/** `*_KEY` / `*_TOKEN` names that are identifiers, sizes or cursors, not credentials. */
const NOT_SECRET_KEY_NAME = new RegExp(
  '(?:^|_)(?:PRIMARY|FOREIGN|SORT|PARTITION|CACHE|PUBLIC|ROUTING|LOOKUP|IDEMPOTENCY|MAX|MIN|NUM|NEXT|PAGE|' +
    'CONTINUATION|CURSOR|HOT|SHORTCUT|MAP|GROUP)_(?:KEY|TOKEN)$',
);

function secretKind(key: string): string | null {
  const name = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toUpperCase();
  if (!SECRET_KEY_NAME.test(name) || NOT_SECRET_KEY_NAME.test(name)) return null;
  if (/SECRET_ACCESS_KEY$/.test(name)) return 'aws-secret-key';
  if (/PASS(?:WORD|WD|PHRASE)?$/.test(name)) return 'password';
  return 'secret';
}

/** Empty values, variable references (`${VAR}`, `$(cmd)`, `%VAR%`, `{{ var }}`), `<your-key>`, masks and stock words. */
const PLACEHOLDER = new RegExp(
  [
    '^(?:',
    '|\\$.*|#.*|%\\w+%|<.*>|\\{\\{.*\\}\\}',
    '|\\*+|x{3,}|\\.{3,}|…|-+|_+',
    '|null|none|nil|undefined|true|false|changeme|change[-_]?me|placeholder|example|dummy|redacted|secret|password',
    '|your[-_ ].*|.*[-_ ]here|\\w*\\[REDACTED(?::[\\w-]+)?\\]\\w*',
    ')$',
  ].join(''),
  'i',
);

function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value.trim()) || value.includes('[REDACTED:');
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
