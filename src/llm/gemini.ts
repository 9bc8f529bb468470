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

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Finish reasons after which the text is whole (or whole up to the token limit); every other one is a block. */
const FINISHED = new Set(['STOP', 'FINISH_REASON_UNSPECIFIED']);

/**
 * Google's Gemini API: `POST {base}/v1beta/models/{model}:generateContent` with `x-goog-api-key`, body
 * `{contents: [{role: "user", parts: [{text}]}], systemInstruction?, generationConfig: {maxOutputTokens,
 * responseMimeType?}}`; the answer is the text parts of `candidates[0].content`. A blocked prompt
 * (`promptFeedback.blockReason`) or a candidate stopped for safety, recitation and the like is an error.
 */
export class GeminiProvider implements Provider {
  readonly name = 'gemini' as const;
  readonly generative = true;
  readonly endpoint: ResolvedEndpoint;

  constructor(private readonly options: RemoteProviderOptions) {
    this.endpoint = resolveModelEndpoint(options, GEMINI_BASE_URL, '/v1beta', `/${buildModelPath(options.model)}:generateContent`);
  }

  get model(): string {
    return this.options.model;
  }

  async complete(prompt: string, options: CompleteOptions = {}): Promise<string> {
    const headers: Record<string, string> = this.options.apiKey ? { 'x-goog-api-key': this.options.apiKey } : {};
    const body = await postToModel(this.name, this.endpoint, buildGenerateRequest(prompt, options), headers, this.options, options);
    return readGenerateAnswer(this.model, body, options);
  }
}

/** `gemini-2.0-flash` → `models/gemini-2.0-flash`; a name already under `models/` or `tunedModels/` is kept. */
function buildModelPath(model: string): string {
  const path = /^(models|tunedModels)\//u.test(model) ? model : `models/${model}`;
  return path.split('/').map(encodeURIComponent).join('/');
}

export function buildGenerateRequest(prompt: string, options: CompleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: [{ role: 'user', parts: [{ text: prompt }] }] };
  if (options.system) body.systemInstruction = { parts: [{ text: options.system }] };
  const generationConfig: Record<string, unknown> = { maxOutputTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS };
  if (options.json) generationConfig.responseMimeType = 'application/json';
  body.generationConfig = generationConfig;
  return body;
}

export function readGenerateAnswer(model: string, body: unknown, options: CompleteOptions): string {
  const answer = (body ?? {}) as { candidates?: unknown; promptFeedback?: { blockReason?: unknown } | null };
  const blocked = answer.promptFeedback?.blockReason;
  if (blocked !== undefined && blocked !== null && blocked !== 'BLOCK_REASON_UNSPECIFIED') {
    throw createAnswerError('gemini', model, `the prompt was blocked (promptFeedback.blockReason ${describeValue(blocked)})`);
  }
  if (!Array.isArray(answer.candidates) || answer.candidates.length === 0) {
    throw createAnswerError('gemini', model, `no candidates[] in ${describeValue(body)}`);
  }
  const candidate = (answer.candidates[0] ?? {}) as { content?: { parts?: unknown } | null; finishReason?: unknown };
  const finish = candidate.finishReason;
  const cut = finish === 'MAX_TOKENS';
  if (finish !== undefined && finish !== null && !cut && !FINISHED.has(String(finish))) {
    throw createAnswerError('gemini', model, `the answer was blocked (finishReason ${describeValue(finish)})`);
  }
  checkNotCut('gemini', model, cut, options, 'finishReason "MAX_TOKENS"');
  const parts = candidate.content?.parts;
  if (!Array.isArray(parts)) throw createAnswerError('gemini', model, `candidates[0].content.parts is ${describeValue(parts)}`);
  // Thinking models may return their thoughts as parts marked `thought`: not the answer.
  const texts = parts.filter((part: unknown) => (part as { thought?: unknown } | null)?.thought !== true).map((part) => (part as { text?: unknown } | null)?.text);
  const present = texts.filter((text) => text !== undefined);
  if (present.length === 0) throw createAnswerError('gemini', model, `candidates[0].content.parts holds no text: ${describeValue(parts)}`);
  const bad = present.findIndex((text) => typeof text !== 'string');
  if (bad >= 0) throw createAnswerError('gemini', model, `a part's text is not text: ${describeValue(present[bad])}`);
  return checkAnswerText('gemini', model, present.join(''), 'the text of candidates[0].content.parts', options.json === true);
}
