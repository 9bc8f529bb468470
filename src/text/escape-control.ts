/**
 * Transcript text is untrusted: an escape sequence inside it must not move the cursor, recolour or clear the
 * reader's terminal. Control characters become visible escapes; newlines and tabs are kept unless `oneLine`.
 */
export function escapeControl(text: string, options: { oneLine?: boolean } = {}): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => {
    if (!options.oneLine && (char === '\n' || char === '\t')) return char;
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
