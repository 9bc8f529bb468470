import { MARKERS, marker } from './common.js';

/**
 * Multi-line private keys: PEM blocks of every type (RSA, EC, DSA, OPENSSH, ENCRYPTED PKCS#8, PGP's
 * `PRIVATE KEY BLOCK`) and PuTTY `.ppk` files. The whole block goes, BEGIN to END.
 */

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
/**
 * Key material whose end marker is missing (truncated tool output): base64 lines and the headers of encrypted
 * and PGP keys (`Proc-Type`, `DEK-Info`, `Version`, `Comment`), with real or JSON-escaped (`\n`) line breaks.
 * Every repetition consumes line breaks and then key material, so the scan is linear and stops before the
 * first line that is not part of the key.
 */
const LINE_BREAK = '[ \\t]*(?:\\\\r)?(?:\\\\n|\\r?\\n)';
/** A line of key material ends at a line break, the end of the text, or where a tool cut it (`…`, a closing quote). */
const BASE64_LINE = `[A-Za-z0-9+/=]+(?=${LINE_BREAK}|[ \\t]*$|…|\\.\\.\\.|["'\`])`;
const HEADER_LINE = '(?:Proc-Type|DEK-Info|Version|Comment): [^\\n\\\\]{0,200}';
const KEY_BODY = new RegExp(
  `[ \\t]*(?:${BASE64_LINE})?(?:(?:${LINE_BREAK})+[ \\t]*(?:${BASE64_LINE}|${HEADER_LINE}))*`,
  'y',
);

export function redactPrivateKeys(text: string): string {
  let out = text;
  if (out.includes('PRIVATE KEY')) out = redactBlocks(out, PEM_BEGIN, PEM_END);
  if (out.includes('PuTTY-User-Key-File-')) out = redactBlocks(out, PUTTY_BEGIN, PUTTY_END);
  // A cut-off PuTTY key lost its MAC line, and its format line alone hides no key material.
  if (out.includes('Private-Lines:')) out = redactBlocks(out, PUTTY_PRIVATE_LINES, PUTTY_END);
  return out;
}

/** PuTTY keys run from the format line to the `Private-MAC` line that closes them. */
const PUTTY_BEGIN = /PuTTY-User-Key-File-[0-9]: /g;
const PUTTY_END = /Private-MAC: ?[0-9a-fA-F]{0,128}/g;
const PUTTY_PRIVATE_LINES = /Private-Lines: ?[0-9]{1,4}/g;

function redactBlocks(text: string, begins: RegExp, ends: RegExp): string {
  let out = '';
  let from = 0;
  let endsLeft = true;
  begins.lastIndex = 0;
  for (let begin = begins.exec(text); begin; begin = begins.exec(text)) {
    const afterBegin = begin.index + begin[0].length;
    // End markers are searched monotonically, and once none is left no later begin can have one: linear.
    let end: RegExpExecArray | null = null;
    if (endsLeft) {
      ends.lastIndex = afterBegin;
      end = ends.exec(text);
      endsLeft = end !== null;
    }
    const stop = end ? end.index + end[0].length : scanKeyBody(text, afterBegin);
    out += text.slice(from, begin.index) + marker('private-key') + keptMarkers(text.slice(afterBegin, stop));
    from = stop;
    begins.lastIndex = stop;
  }
  return out + text.slice(from);
}

/** Markers an earlier pass left inside a block survive after the block's own (redaction never takes one away). */
function keptMarkers(span: string): string {
  return span.includes('[REDACTED:') ? Array.from(span.matchAll(MARKERS), (match) => match[0]).join('') : '';
}

function scanKeyBody(text: string, from: number): number {
  KEY_BODY.lastIndex = from;
  KEY_BODY.exec(text);
  return Math.max(KEY_BODY.lastIndex, from);
}
