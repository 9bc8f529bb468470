import { MoonError } from '../errors.js';
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

export const OPENAI_BASE_URL = 'https://api.openai.com';

type ChatProviderName = 'openai' | 'openai-compatible';

/**
 * OpenAI's chat completions protocol (`POST {base}/v1/chat/completions`), spoken by OpenAI itself (`openai`) and by
 * Ollama, LM Studio, vLLM, llama.cpp's server, LiteLLM... (`openai-compatible`). One user message, the system text
 * as a `system` message before it, `response_format: {type: "json_object"}` for JSON (the prompt itself must
 * then ask for JSON — OpenAI rejects JSON mode otherwise). OpenAI gets `max_completion_tokens` (its reasoning
 * models refuse `max_tokens`); other servers get `max_tokens`, the field they all know.
 */
export class ChatCompletionsProvider implements Provider {
  readonly generative = true;
  readonly endpoint: ResolvedEndpoint;

  constructor(
    readonly name: ChatProviderName,
    private readonly options: RemoteProviderOptions,
    private readonly tokenField: 'max_tokens' | 'max_completion_tokens',
    vendorBase: string,
  ) {
    this.endpoint = resolveModelEndpoint(options, vendorBase, '/v1', '/chat/completions');
  }

  get model(): string {
    return this.options.model;
  }

  async complete(prompt: string, options: CompleteOptions = {}): Promise<string> {
    const headers: Record<string, string> = this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
    const body = await postToModel(this.name, this.endpoint, buildChatRequest(this.model, prompt, options, this.tokenField), headers, this.options, options);
    return readChatAnswer(this.name, this.model, body, options);
  }
}

/** `openai`: api.openai.com unless distill.base_url says otherwise; a key is required (the factory checks it). */
export function createOpenAIProvider(options: RemoteProviderOptions): ChatCompletionsProvider {
  return new ChatCompletionsProvider('openai', options, 'max_completion_tokens', OPENAI_BASE_URL);
}

/** `openai-compatible`: any server speaking the protocol; distill.base_url required, a key only if the server wants one. */
export function createOpenAICompatibleProvider(options: RemoteProviderOptions): ChatCompletionsProvider {
  if (!options.baseUrl) {
    throw new MoonError('bad_config', 'distill.base_url is required when distill.provider = "openai-compatible"', {
      hint: 'e.g. "http://127.0.0.1:11434/v1" for Ollama',
    });
  }
  return new ChatCompletionsProvider('openai-compatible', options, 'max_tokens', options.baseUrl);
}

export function buildChatRequest(
  model: string,
  prompt: string,
  options: CompleteOptions,
  tokenField: 'max_tokens' | 'max_completion_tokens',
): Record<string, unknown> {
  const messages: { role: string; content: string }[] = [];
  if (options.system) messages.push({ role: 'system', content: options.system });
  messages.push({ role: 'user', content: prompt });
  const body: Record<string, unknown> = { model, messages, [tokenField]: options.maxTokens ?? DEFAULT_MAX_TOKENS };
  if (options.json) body.response_format = { type: 'json_object' };
  return body;
}

/** `choices[0].message.content`, checked: refusals, the content filter and tool calls are errors, not answers. */
export function readChatAnswer(name: ChatProviderName, model: string, body: unknown, options: CompleteOptions): string {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw createAnswerError(name, model, `no choices[] in ${describeValue(body)}`);
  const choice = (choices[0] ?? {}) as { message?: unknown; finish_reason?: unknown };
  const message = choice.message as { content?: unknown; refusal?: unknown } | null | undefined;
  if (!message || typeof message !== 'object') throw createAnswerError(name, model, `choices[0].message is ${describeValue(message)}`);
  if (typeof message.refusal === 'string' && message.refusal.trim() !== '') {
    throw createAnswerError(name, model, `the model refused: ${describeValue(message.refusal)}`);
  }
  const finish = choice.finish_reason;
  if (finish === 'content_filter') throw createAnswerError(name, model, 'the content filter withheld the answer (finish_reason "content_filter")');
  if (finish === 'tool_calls' || finish === 'function_call') {
    throw createAnswerError(name, model, `the model called a tool instead of answering (finish_reason "${finish}")`);
  }
  checkNotCut(name, model, finish === 'length', options, 'finish_reason "length"');
  return checkAnswerText(name, model, joinContentParts(message.content), 'choices[0].message.content', options.json === true);
}

/** Content is a string; a few servers send a list of `{type: "text", text}` parts instead. */
function joinContentParts(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  const texts = content.filter((part: unknown) => (part as { type?: unknown } | null)?.type === 'text').map((part) => (part as { text?: unknown }).text);
  return texts.every((text) => typeof text === 'string') ? texts.join('') : content;
}
