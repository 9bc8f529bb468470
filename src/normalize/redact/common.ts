/** Helpers every redaction pass shares: the marker, the "looks generated" test and placeholder detection. */

export function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Every marker a pass has written (global: for `matchAll`). */
export const MARKERS = /\[REDACTED:[\w-]+\]/g;

/**
 * Generated secrets mix digits with letters, or upper with lower case; words joined by hyphens
 * (`sk-learn-compatible-estimators`, `Bearer authentication`) do not.
 */
export function looksRandom(token: string): boolean {
  const hasDigit = /[0-9]/.test(token);
  const hasUpper = /[A-Z]/.test(token);
  const hasLower = /[a-z]/.test(token);
  return hasDigit ? hasUpper || hasLower : hasUpper && hasLower && token.length >= 20;
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

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value.trim()) || value.includes('[REDACTED:');
}
