import { MoonError } from '../errors.js';
import { redactAssignments } from './redact/assign.js';
import { redactPrivateKeys } from './redact/blocks.js';
import { marker } from './redact/common.js';
import { redactCutTokens } from './redact/cut.js';
import { redactAuthorization, redactUrlPasswords } from './redact/headers.js';
import { redactProse } from './redact/prose.js';
import { redactTokens } from './redact/tokens.js';

/**
 * Secret redaction: every match becomes `[REDACTED:kind]`. Passes run from most to least specific — private key
 * blocks, provider tokens (whole, then cut short by a display limit), URL passwords, Authorization headers, `key = value` assignments, then prose
 * ("the password is …") — so a key inside an assignment (`OPENAI_API_KEY=sk-…`) keeps its precise kind.
 * Properties the tests pin:
 * - idempotent: a value that already is (or contains) a `[REDACTED:…]` marker is never redacted again;
 * - linear: every quantifier is bounded or runs over disjoint character classes, and the block, assignment and
 *   prose scans only move forward, so a 1 MB line costs a few passes (the tests time hostile inputs);
 * - quiet on prose, git SHAs, UUIDs, digests, code references (`process.env.API_KEY`) and placeholders (`${VAR}`).
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
    out = redactTokens(out);
    out = redactCutTokens(out);
    out = redactUrlPasswords(out);
    out = redactAuthorization(out);
    out = redactAssignments(out);
    out = redactProse(out);
    for (const pattern of custom) out = out.replace(pattern, (match) => (match === '' ? match : marker('custom')));
    return out;
  };
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
