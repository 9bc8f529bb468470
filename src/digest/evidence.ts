/**
 * Commits and pull requests a text names: a hex id of 7–40 digits after the word `commit` (or git's own
 * `[branch abc1234]` line), a pull-request URL, or `#123` after `PR`/`pull request`/`merged`/`fixes`/`closes`.
 */
export function findCommits(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/\bcommit(?:ted|s)?\b[\s:]*(?:(?:as|to|is|was|hash|id|sha)\b[\s:]*)*[`'"(]?([0-9a-f]{7,40})\b/gi)) found.add(match[1]!.toLowerCase());
  for (const match of text.matchAll(/^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\]/gm)) found.add(match[1]!.toLowerCase());
  return [...found];
}

export function findPullRequests(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/https?:\/\/[^\s)>\]"'`]+\/(?:pull|merge_requests)\/\d+/g)) found.add(match[0]);
  for (const match of text.matchAll(/\b(?:PR|pull request|merged|fixes|closes|resolves)\s*:?\s*(#\d+)\b/gi)) found.add(match[1]!);
  return [...found];
}
