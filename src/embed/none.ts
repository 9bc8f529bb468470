/**
 * `embed.provider = "none"` (the default): no embedder. Recall runs on its lexical, trigram and temporal signals
 * alone, and nothing is ever embedded or sent anywhere.
 */
export const NO_EMBEDDER_HINT =
  'semantic search is off (embed.provider = "none"); set embed.provider to "local", "openai-compatible" or "transformers" to enable it';

/** The factory's answer for `provider = "none"`: null, so callers skip every vector step. */
export function createNoneEmbedder(): null {
  return null;
}
