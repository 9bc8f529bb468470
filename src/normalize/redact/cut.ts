import { marker } from './common.js';
import { TOKEN_RULES } from './token-rules.js';

/**
 * Tokens cut short by a tool's display limit (`ghp_Ab12…`): too short for their own rule, yet the part shown is
 * secret. A run of token characters that ends at `…` and starts with a distinctive prefix goes. Each `…` is
 * walked back over the run before it, and runs end at `…`, so every character is read at most twice.
 */

const MAX_RUN = 4096;
/** Prefixes specific enough to mean a secret on their own: three characters or more, not shared with words. */
const WEAK = new Set(['cio', 'oy2', '-us', 'dp.', 'sig=', 'live_', 'key-', 'EAA', 'AQE']);
const CUT_PREFIXES = [...new Set(TOKEN_RULES.flatMap((rule) => rule.gates))].filter((gate) => gate.length >= 3 && !WEAK.has(gate));
const CUT_PREFIX = new RegExp(
  `(?<![A-Za-z0-9])(?:${CUT_PREFIXES.sort((a, b) => b.length - a.length).map((gate) => gate.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
);

/** Token characters: letters, digits and `_ . + / = ~ $ -`. */
function isRunChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || '_.+/=~$-'.includes(String.fromCharCode(code))
  );
}

export function redactCutTokens(text: string): string {
  let at = text.indexOf('…');
  if (at < 0) return text;
  let out = '';
  let from = 0;
  for (; at >= 0; at = text.indexOf('…', at + 1)) {
    let start = at;
    while (start > from && at - start < MAX_RUN && isRunChar(text.charCodeAt(start - 1))) start--;
    if (start === at) continue;
    const run = text.slice(start, at);
    const prefix = CUT_PREFIX.exec(run);
    if (!prefix) continue;
    out += text.slice(from, start + prefix.index) + marker('secret');
    from = at;
  }
  return out + text.slice(from);
}
