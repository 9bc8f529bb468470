import type { ResolvedEndpoint } from '../net/endpoint.js';
import { DEFAULT_MAX_TOKENS, type CompleteOptions, type Provider } from './provider.js';
import {
  checkAnswerText,
  checkNotCut,
  createAnswerError,
  describeValue,
  postToModel,
  resolveModelEndpoint,
  type RemoteProviderOptions,
} from './remote.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic has no JSON mode: JSON is asked for in the system text, and a fence around the object is taken off. */
export const ANTHROPIC_JSON_INSTRUCTION = 'Answer with one JSON object and nothing else: no prose, no Markdown fence.';

/** Stop reasons after which the text is whole, or whole up to the token limit. */
const FINISHED = new Set(['end_turn', 'stop_sequence']);
const CUT = new Set(['max_tokens', 'model_context_window_exceeded']);

/**
 * Anthropic's Messages API: `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`, body
 * `{model, max_tokens, system?, messages: [{role: "user", content}]}`; the answer is the concatenated text blocks
 * of `content[]`. A `refusal` (or any stop reason but the finished and cut ones) is an error.
 */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic' as const;
  readonly generative = true;
  readonly endpoint: ResolvedEndpoint;

  constructor(private readonly options: RemoteProviderOptions) {
    this.endpoint = resolveModelEndpoint(options, ANTHROPIC_BASE_URL, '/v1', '/messages');
  }

  get model(): string {
    return this.options.model;
  }

  async complete(prompt: string, options: CompleteOptions = {}): Promise<string> {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    const body = await postToModel(this.name, this.endpoint, buildMessagesRequest(this.model, prompt, options), headers, this.options, options);
    return readMessagesAnswer(this.model, body, options);
  }
}

export function buildMessagesRequest(model: string, prompt: string, options: CompleteOptions): Record<string, unknown> {
  const system = [options.system, options.json ? ANTHROPIC_JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n');
  const body: Record<string, unknown> = { model, max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS };
  if (system) body.system = system;
  body.messages = [{ role: 'user', content: prompt }];
  return body;
}

export function readMessagesAnswer(model: string, body: unknown, options: CompleteOptions): string {
  const message = (body ?? {}) as { content?: unknown; stop_reason?: unknown };
  if (!Array.isArray(message.content)) throw createAnswerError('anthropic', model, `no content[] in ${describeValue(body)}`);
  const stop = message.stop_reason;
  if (stop === 'refusal') throw createAnswerError('anthropic', model, 'the model refused (stop_reason "refusal")');
  if (stop !== null && stop !== undefined && !FINISHED.has(String(stop)) && !CUT.has(String(stop))) {
    throw createAnswerError('anthropic', model, `the model stopped without answering (stop_reason ${describeValue(stop)})`);
  }
  checkNotCut('anthropic', model, CUT.has(String(stop)), options, `stop_reason "${String(stop)}"`);
  const blocks = message.content.filter((block: unknown) => (block as { type?: unknown } | null)?.type === 'text');
  if (blocks.length === 0) throw createAnswerError('anthropic', model, `content[] holds no text block: ${describeValue(message.content)}`);
  const texts = blocks.map((block) => (block as { text?: unknown }).text);
  const bad = texts.findIndex((text) => typeof text !== 'string');
  if (bad >= 0) throw createAnswerError('anthropic', model, `a text block's text is not text: ${describeValue(texts[bad])}`);
  return checkAnswerText('anthropic', model, texts.join(''), 'the text of content[]', options.json === true);
}
