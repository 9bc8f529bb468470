import { frameHistory, makeSafeText } from '../inject/safe-text.js';
import type { RecallResult } from '../model.js';
import type { Redactor } from '../normalize/redact.js';
import type { RecallOptions } from '../search/options.js';
import { shortenSessionId } from '../browse/resolve-session-id.js';
import type { BrowsePort } from '../store/ports.js';
import { type Piece, fitToBudget } from './budget.js';
import { findProjectScope, isWithin, normalizePath } from '../search/project-scope.js';
import { describeWhen } from './session-start.js';
import type { TokenCounter } from '../text/tokens.js';

/**
 * user-prompt-submit (hooks.user_prompt_recall): a small recall for what the user just typed — the best few
 * earlier sessions of this project that mention it, a snippet each — within hooks.user_prompt_budget_tokens,
 * made safe and framed. Prompts too short to search (a word or two, a slash command) get nothing. The recall
 * is lexical (and temporal): a hook never loads an embedding model.
 */
export interface UserPromptInput {
  prompt: string;
  cwd: string | null;
  sessionId: string | null;
  budget: number;
}

export interface UserPromptDeps {
  browse: BrowsePort;
  recall: (options: RecallOptions) => Promise<RecallResult>;
  zone: string;
  redact: Redactor;
  counter: TokenCounter;
  homeDir: string;
}

/** Sessions shown at most. */
export const MAX_PROMPT_MATCHES = 3;
/** The part of a long prompt searched (a pasted file is not a query). */
const QUERY_CHARS = 500;
const SNIPPET_LINE_CHARS = 300;

export async function buildPromptRecall(deps: UserPromptDeps, input: UserPromptInput): Promise<{ text: string; tokens: number } | null> {
  if (input.budget <= 0 || !isSearchable(input.prompt)) return null;
  const scope = input.cwd ? await findProjectScope(deps.browse, input.cwd, deps.homeDir) : null;
  const result = await deps.recall({
    query: Array.from(input.prompt.trim()).slice(0, QUERY_CHARS).join(''),
    group: 'session',
    limit: MAX_PROMPT_MATCHES * 2,
    messagesPerSession: 2,
    excludeSession: input.sessionId ? [input.sessionId] : undefined,
    // A part of the cwd: recall's project filter; the exact "inside the root" check follows.
    project: scope ? [scope.root] : undefined,
  });
  const matches = result.matches
    .filter((match) => !scope || (match.metadata.cwd !== null && isWithin(normalizePath(match.metadata.cwd), scope.root)))
    .slice(0, MAX_PROMPT_MATCHES);
  if (matches.length === 0) return null;
  const safe = (text: string, maxChars: number): string => makeSafeText(text, { oneLine: true, maxChars, redact: deps.redact });
  const pieces: Piece[] = [
    { rank: 0, order: 0, text: `Earlier sessions${scope ? ` in project "${safe(scope.name, 80)}"` : ''} that mention this prompt's words (moon recall, best first):` },
  ];
  matches.forEach((match, index) => {
    const head = 100 + index * 100;
    const start = match.metadata.session_start ? Date.parse(match.metadata.session_start) : null;
    const end = match.metadata.session_end ? Date.parse(match.metadata.session_end) : null;
    const where = match.metadata.project ? ` (${safe(match.metadata.project, 80)})` : '';
    pieces.push({
      rank: index === 0 ? 0 : 1 + index / 10,
      order: head,
      text: `- ${describeWhen(start, end, deps.zone)} · session ${safe(shortenSessionId(match.metadata.session_id), 24)}${where}, ${match.metadata.source}`,
    });
    match.snippet
      .split('\n')
      .filter((line) => line.trim() !== '')
      .forEach((line, k) => pieces.push({ rank: 2 + k + index / 10, order: head + 1 + k, parent: head, text: `  ${safe(line, SNIPPET_LINE_CHARS)}` }));
  });
  const fitted = await fitToBudget(pieces, (chosen) => frameHistory(chosen.map((piece) => piece.text).join('\n')), input.budget, deps.counter);
  return fitted ? { text: fitted.text, tokens: fitted.tokens } : null;
}

/** At least two words of three letters or more, and not a slash command. */
export function isSearchable(prompt: string): boolean {
  const text = prompt.trim();
  if (text === '' || text.startsWith('/')) return false;
  return (text.match(/[\p{L}\p{N}_]{3,}/gu) ?? []).length >= 2;
}
