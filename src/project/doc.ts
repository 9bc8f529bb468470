import type { CompactionAnchor, Entry, Session } from '../model.js';
import type { RankedTerm, TermCorpus } from '../normalize/keywords.js';

/** Everything the v2 renderer needs for one session. Built by the pipeline; render.ts reads it and nothing else. */
export interface SessionDoc {
  session: Session;
  /** Cleaned and redacted entries, in seq order (render re-sorts anyway so callers cannot break determinism). */
  entries: Entry[];
  anchors: CompactionAnchor[];
  /** Records dropped as noise before projection (seed 001 ArchiveRecord.projection_filtered_noise_count). */
  filteredNoiseCount: number;
  /** Path of the raw archive copy (frontmatter `archive_jsonl_path`). */
  archivePath: string;
  contentHash: string;
  /** Residential IANA time zone used for local times (seed 001 `distill.residential_timezone`). */
  timezone: string;
  /**
   * The whole index's term counts, when rendering from an index: keywords then favour terms that set this session
   * apart. Absent for a single-file render, which ranks by the session alone and stays deterministic.
   */
  corpus?: TermCorpus;
  /** The session's terms ranked in-session (rankSessionTerms), when the caller has them already. */
  rankedTerms?: readonly RankedTerm[];
}
