/**
 * The RLM history index (seed 004): what `moon rlm index` writes and `moon rlm query` reads. Field names are seed
 * 004's; the fields it does not define (prompt hashes for incremental runs, marker context, segment branch and
 * times, how the index was made) are allowed by the shipped schema, schemas/history-index.schema.json.
 */

/** The index format's version (semver). A reader refuses another major version. */
export const HISTORY_INDEX_VERSION = '1.0.0';

export type SummarySource = 'local' | 'llm' | 'llm-fallback';

export interface IndexSegment {
  /** `seg-<first prompt id>`: stable while the segment starts at the same prompt. */
  id: string;
  branchId: string;
  /** The prompts this segment owns, in branch order; every prompt of the history is in exactly one segment. */
  promptIds: string[];
  /** Prompts before this segment's first, in the same conversation, given to the summariser as context only. */
  overlapPromptIds: string[];
  summary: string;
  topics: string[];
  importanceScore: number;
  keyEntities: string[];
  /** cl100k_base tokens of the segment's own prompts and responses (the overlap excluded). */
  tokenCount: number;
  /** SHA-256 over the branch id and the overlap's and own prompts' hashes: what an incremental run compares. */
  hash: string;
  /** Epoch ms of the earliest prompt and the latest prompt or response. */
  startTimestamp: number;
  endTimestamp: number;
  /** Who wrote the summary: the local extractive summariser, a model, or the heuristic fallback after a bad answer. */
  summarySource: SummarySource;
}

export interface IndexMarker {
  type: string;
  content: string;
  promptId: string;
  sourceField: 'prompt' | 'response';
  /** The type's priority / 10, in [0, 1]. */
  importance: number;
  segmentId: string;
  /** 1-based line in the prompt's or response's text. */
  lineNumber: number;
  context: { before: string; after: string };
}

export interface IndexBranch {
  id: string;
  name: string;
  /** SHA-256 over the branch id and its prompts' hashes in order. */
  hash: string;
  promptCount: number;
  segmentIds: string[];
}

/** Per prompt, in history order: what the next incremental run compares and reuses. */
export interface IndexPrompt {
  id: string;
  hash: string;
  tokens: number;
}

export interface SegmentationConfig {
  /** Default 50,000 (cl100k_base tokens). */
  maxTokensPerSegment: number;
  /** Tokens of the preceding turns of the same conversation given as context when a conversation is split. */
  segmentOverlap: number;
  /** Pack whole conversation trees and break between them; split a tree only when it alone is too large. */
  preferNaturalBoundaries: boolean;
}

export interface IndexGeneratorInfo {
  /** `local`, or the LLM provider's name (`openai`, `command`, …). */
  summarizer: string;
  model: string;
  /** The summary prompt template's version: a new template invalidates cached answers. */
  template: string;
  segmentation: SegmentationConfig;
}

export interface IndexStatistics {
  totalPrompts: number;
  totalSegments: number;
  totalMarkers: number;
  processingTimeMs: number;
  llmCallCount: number;
}

export interface HistoryIndex {
  version: string;
  generatedAt: string;
  historyFile: string;
  /** SHA-256 over the branches' hashes in display order: equal when no prompt or response changed. */
  contentHash: string;
  generator: IndexGeneratorInfo;
  segments: IndexSegment[];
  markers: IndexMarker[];
  /** topic → segment ids, topics lower-case with hyphens for spaces. */
  topicIndex: Record<string, string[]>;
  branches: IndexBranch[];
  prompts: IndexPrompt[];
  statistics: IndexStatistics;
}

/** Seed 004's ProcessingStatistics, plus markers by type and what an incremental run did. */
export interface ProcessingStatistics {
  startTime: number;
  endTime: number;
  duration: number;
  promptsProcessed: number;
  segmentsGenerated: number;
  markersExtracted: number;
  markersByType: Record<string, number>;
  llmCalls: {
    count: number;
    totalTokens: number;
    estimatedCost: number;
    /** Answers taken from the summary cache instead of a call. */
    cacheHits: number;
  };
  incrementalStats?: IncrementalStats;
  errors: Array<{ phase: string; message: string; promptId?: string }>;
}

export interface IncrementalStats {
  segmentsSkipped: number;
  segmentsUpdated: number;
  segmentsAdded: number;
  segmentsRemoved: number;
  promptsAdded: number;
  promptsModified: number;
  promptsRemoved: number;
  /** True when more than half the segments were affected (or the settings changed): every segment was regenerated. */
  fullReindex: boolean;
  /** Why a full reindex was done; null when none was. */
  fullReindexReason: string | null;
}
