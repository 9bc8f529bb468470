/**
 * Context windows by model, in one table: how many tokens a session on that model can hold before its agent must
 * compact. Used only when the transcript does not state its window (Codex's `model_context_window` and OpenClaw's
 * `contextTokens` win), so a ratio is never worse than this table.
 */

/** A model this table does not know: the window most current agent models have (Claude, o3/o4). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** Claude's long-context variants (`claude-sonnet-4-5[1m]`, the `context-1m` beta). */
export const CLAUDE_LONG_CONTEXT_WINDOW = 1_000_000;

/** Claude's standard window. */
export const CLAUDE_CONTEXT_WINDOW = 200_000;

/**
 * First match wins, so the specific rows come before their family. Values are input windows — what the
 * conversation fills — not input + output: GPT-5 models take 272k input tokens (Codex itself reports 95% of that,
 * 258,400, in `model_context_window`).
 */
const WINDOWS: readonly (readonly [RegExp, number])[] = [
  [/\[1m\]|(?:^|[-_])1m(?:$|[-_])|context-1m/, CLAUDE_LONG_CONTEXT_WINDOW],
  [/claude/, CLAUDE_CONTEXT_WINDOW],
  [/^codex-mini/, 200_000],
  [/^gpt-5/, 272_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^(?:chatgpt-)?gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^o[134](?:$|-)/, 200_000],
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini-/, 1_048_576],
];

/** The context window of a model, by name (`claude-opus-4-7`, `gpt-5.3-codex`, `openai/gpt-4o`); unknown: the default. */
export function contextWindowFor(model: string | null | undefined): number {
  const name = normalizeModel(model);
  if (name === '') return DEFAULT_CONTEXT_WINDOW;
  return WINDOWS.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/** Whether the model is one of Anthropic's: only they come in a long-context variant told apart by usage. */
export function isClaudeModel(model: string | null | undefined): boolean {
  return normalizeModel(model).includes('claude');
}

/** Lower case, without a router's `provider/` prefix (OpenClaw and OpenRouter write `anthropic/claude-…`). */
function normalizeModel(model: string | null | undefined): string {
  if (typeof model !== 'string') return '';
  const name = model.trim().toLowerCase();
  return name.slice(name.lastIndexOf('/') + 1);
}
