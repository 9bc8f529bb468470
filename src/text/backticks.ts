/**
 * The longest run of backticks in a text, so a code fence can be made longer than any run inside it. A loop, not
 * `Math.max(...runs)`: spreading every run of a long text as arguments overflows the call stack.
 */
export function findLongestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let index = 0; index < text.length; index += 1) {
    run = text.charCodeAt(index) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
