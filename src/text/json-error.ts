/**
 * What went wrong in a JSON text, without its text: V8's own messages quote the input (`Unexpected token 'r',
 * "root:x:0:0"... is not valid JSON`), which would hand a file's first characters to whoever named it. This says
 * where instead, when the parser knows.
 */
export function describeJsonError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/end of JSON input|Unterminated/i.test(message)) {
    const at = /position (\d+)/.exec(message);
    return at ? `it ends early (position ${at[1]})` : 'it ends early';
  }
  const at = /position (\d+)/.exec(message);
  return at ? `an unexpected character at position ${at[1]}` : 'an unexpected character';
}
