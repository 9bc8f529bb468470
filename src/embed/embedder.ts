/**
 * An Embedder turns texts into vectors. `id` is the model fingerprint: vectors made by one id are never
 * compared with another's, and a changed id re-embeds everything (moon status shows coverage meanwhile).
 */
export interface Embedder {
  /** Stable fingerprint: provider + model + dims (+ anything else that changes the vectors). */
  readonly id: string;
  readonly dims: number;
  /** One vector per text, same order, each of length `dims` (L2-normalised). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close?(): Promise<void>;
}

export type EmbedProviderName = 'none' | 'local' | 'openai-compatible' | 'transformers';
