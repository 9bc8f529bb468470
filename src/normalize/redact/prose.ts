import { isPlaceholder, marker } from './common.js';

/**
 * Secrets stated in prose: "the password is hunter2", "pwd: s3cret!", "aws secret key: …", "api key = …",
 * "passphrase tr0ub4dor&3". The phrase names the secret; the value must still look like one, so
 * "reset your password", "the password is stored in the vault" and "password field" stay.
 */

const KEYWORD =
  '(?:aws[ _-]?)?(?:secret(?:[ _-]access)?[ _-]key|access[ _-]key|api[ _-]?key|private[ _-]key|' +
  'password|passwd|passphrase|pass[ _-]?code|pwd|secret|token)';
/** "is", "was", "is now", "was set to", "for admin is" — an optional subject, then a verb of being. */
const VERB = '(?:[ \\t]{1,3}for[ \\t]{1,3}[^\\s]{1,64})?[ \\t]{1,3}(?:is|was)(?:[ \\t]{1,3}(?:now|still|set[ \\t]to|changed[ \\t]to))?';
const PHRASE_HEAD = new RegExp(
  `(?<![\\w-])(${KEYWORD})(?:[ \\t]{0,3}(?:[:=]|=>|->)|${VERB}(?:[ \\t]{0,3}:)?|([ \\t]))[ \\t]{0,3}`,
  'gi',
);
const GATE = /pass|pwd|secret|key|token/i;
const QUOTED = /"[^"\n]{1,200}"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|“[^”\n]{1,200}”/y;
const UNQUOTED = /(?:[^\s"'`<>\\]|\\(?![ntr"])){1,200}/y;

export function redactProse(text: string): string {
  if (!GATE.test(text)) return text;
  let out = '';
  let from = 0;
  PHRASE_HEAD.lastIndex = 0;
  for (let head = PHRASE_HEAD.exec(text); head; head = PHRASE_HEAD.exec(text)) {
    const headEnd = head.index + head[0].length;
    const keyword = (head[1] ?? '').toLowerCase();
    const bare = head[2] !== undefined;
    const value = readValue(text, headEnd);
    if (value === null || !isSecretLike(value.core, { keyword, bare, quoted: value.quoted })) {
      PHRASE_HEAD.lastIndex = Math.max(head.index + 1, headEnd);
      continue;
    }
    out += text.slice(from, value.start) + marker(kindOf(keyword)) + text.slice(value.end, value.stop);
    from = value.stop;
    PHRASE_HEAD.lastIndex = from;
  }
  return out + text.slice(from);
}

interface PhraseValue {
  core: string;
  quoted: boolean;
  /** The core's span, and where the value with its closing quote ends. */
  start: number;
  end: number;
  stop: number;
}

function readValue(text: string, at: number): PhraseValue | null {
  QUOTED.lastIndex = at;
  const quoted = QUOTED.exec(text);
  if (quoted) {
    const stop = at + quoted[0].length;
    return { core: quoted[0].slice(1, -1), quoted: true, start: at + 1, end: stop - 1, stop };
  }
  UNQUOTED.lastIndex = at;
  const match = UNQUOTED.exec(text);
  if (!match) return null;
  // Sentence punctuation after the value is not part of it: "the password is hunter2."
  const core = match[0].replace(/[.,;:!?)\]}]+$/, '');
  if (core === '') return null;
  return { core, quoted: false, start: at, end: at + core.length, stop: at + core.length };
}

interface PhraseContext {
  keyword: string;
  /** Only whitespace between keyword and value ("passphrase tr0ub4dor&3"): the value must look generated. */
  bare: boolean;
  quoted: boolean;
}

function isSecretLike(value: string, context: PhraseContext): boolean {
  if (isPlaceholder(value) || /^\d{1,7}$/.test(value)) return false;
  // Without a separator only password words introduce a value: "the token `getSession`" names code.
  if (context.bare && !/^(?:pass|pwd)/.test(context.keyword)) return false;
  if (context.quoted) return true;
  if (value.length < 4) return false;
  // A word ("stored", "Required"), a URL, a code reference (`process.env.X`, `getToken()`), a marker.
  if (/^[A-Za-z][a-z]*$/.test(value) || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || /^[A-Za-z_$][\w$.]*[([]/.test(value)) return false;
  // A path names where a key lives ("private key: ~/.ssh/id_ed25519"), and `pwd` prints a folder.
  if (/^(?:[/~]|\.\.?\/|[A-Za-z]:\\)/.test(value)) return false;
  if (context.bare) {
    if (!/^(?:pass|pwd)/.test(context.keyword)) return false;
    return /[0-9]/.test(value) || /[^A-Za-z0-9\-'.]/.test(value) || /.[A-Z]/.test(value);
  }
  return true;
}

function kindOf(keyword: string): string {
  if (/aws/.test(keyword) && /secret/.test(keyword)) return 'aws-secret-key';
  if (/^(?:pass|pwd)/.test(keyword)) return 'password';
  return 'secret';
}
