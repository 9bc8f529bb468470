import type { SourceName } from '../model.js';
import { recordSourceByName } from '../sources/index.js';
import { isObject, str } from '../sources/json-value.js';
import type { RawRecord } from '../sources/source.js';

/** What the first records of a transcript say about its session, for a usage snapshot. */
export interface SessionFacts {
  /** The id moon gives the session: the source's own parser decides, exactly as when indexing. */
  sessionId: string;
  provider: string | null;
  model: string | null;
}

/** The provider a format's sessions talk to when the transcript does not say (`unknown` for formats not listed). */
export const DEFAULT_PROVIDERS: Readonly<Record<SourceName, string>> = {
  'claude-code': 'anthropic',
  codex: 'openai',
  openclaw: 'unknown',
};

/**
 * The session id (Claude Code: the records' `sessionId`, `:agent-<id>` for a subagent; Codex: the first
 * `session_meta` id; OpenClaw: the header's id; else the file name), the provider (Codex `session_meta`
 * `model_provider`, OpenClaw header `provider`) and a first model (Codex `turn_context`, OpenClaw header
 * `modelId` or a `model_change`) from the head of a transcript.
 */
export function readSessionFacts(source: SourceName, path: string, head: readonly RawRecord[]): SessionFacts {
  const parser = recordSourceByName(source);
  const sessionId = parser ? parser.parse(head, { path, carry: null }).session.id : path;
  let provider: string | null = null;
  let model: string | null = null;
  for (const { value } of head) {
    if (!isObject(value)) continue;
    const payload = isObject(value.payload) ? value.payload : null;
    if (source === 'codex' && value.type === 'session_meta' && payload) provider ??= str(payload.model_provider);
    if (source === 'codex' && value.type === 'turn_context' && payload) model ??= str(payload.model);
    if (source === 'openclaw' && (value.type === 'session' || value.type === 'model_change')) {
      provider = str(value.provider) ?? provider;
      model = str(value.modelId) ?? str(value.model) ?? model;
    }
  }
  return { sessionId, provider, model };
}
