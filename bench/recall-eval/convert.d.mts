// Types for convert.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
export const REPO: string;
export const TURN_STEP_MS: number;
export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text?: string;
  blip_caption?: string;
  img_url?: string[];
}
export interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  [key: string]: unknown;
}
export interface ConvertedSession {
  n: number;
  sessionId: string;
  records: Record<string, unknown>[];
  startMs: number;
  endMs: number;
  turns: number;
}
export function parseLocomoDateTime(text: string): number;
export function resolveDataDir(override?: string | null): string;
export function loadLocomo(dataDir: string, only?: string[] | null): { samples: LocomoSample[]; qrels: Record<string, unknown>[] };
export function sessionIdFor(sampleId: string, n: number): string;
export function messageIdFor(sampleId: string, diaId: string): string;
export function diaIdOf(messageId: unknown, sampleId: string): string | null;
export function sessionNumberOf(sessionId: unknown, sampleId: string): number | null;
export function turnText(turn: LocomoTurn): string;
export function convertSample(sample: LocomoSample): { sampleId: string; sessions: ConvertedSession[]; lastEndMs: number };
export function writeTranscripts(
  samples: readonly LocomoSample[],
  outDir: string,
): {
  samples: Record<string, { sessions: number; turns: number; lastEndMs: number; folder: string; speakers: [string, string] }>;
  files: number;
  turns: number;
};
