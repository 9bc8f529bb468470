import type { LlmProviderName } from '../config.js';

/**
 * One interface for every language model moon asks: L2 synthesis, and later digests, segment summaries and query
 * expansion. A provider turns a prompt into text; what the text must look like is the caller's to check.
 */
export interface CompleteOptions {
  /** Upper bound on the answer's length, in the model's tokens. Default DEFAULT_MAX_TOKENS. */
  maxTokens?: number;
  /** Ask for a JSON answer (the vendor's JSON mode where it has one). The caller still parses and validates it. */
  json?: boolean;
  /** Per request, overriding distill.timeout_ms. */
  timeoutMs?: number;
  /** Instructions kept apart from the prompt where the API has a place for them. */
  system?: string;
  /** Told what the call used, when the provider knows it (the `command` provider reads Claude Code's JSON result). */
  onUsage?: (usage: ProviderUsage) => void;
}

/** What one answer cost, as far as the provider reports it. */
export interface ProviderUsage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export interface Provider {
  /** The name recorded in DistillationRecord.provider and the audit log. */
  readonly name: LlmProviderName;
  /** The model asked, or `extractive` for the local provider. */
  readonly model: string;
  /** Whether answers come from a model (true) or from moon's own extractive rules (false: `local`). */
  readonly generative: boolean;
  complete(prompt: string, options?: CompleteOptions): Promise<string>;
}

/** The answer's bound when the caller sets no `maxTokens` (Anthropic requires one; every provider applies it). */
export const DEFAULT_MAX_TOKENS = 1024;
