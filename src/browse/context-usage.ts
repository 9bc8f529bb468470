import type { UsageSnapshot } from '../model.js';
import type { BrowsePort, CopyPort } from '../store/ports.js';
import { describeSessionTitle } from './session-title.js';

/** How full each recent session's context got, snapshot by snapshot (the web view's usage chart). */
export interface ContextUsageSession {
  session_id: string;
  source: string;
  project: string | null;
  title: string;
  start_ms: number | null;
  /** Oldest first. */
  snapshots: Pick<UsageSnapshot, 'used_tokens' | 'max_tokens' | 'usage_ratio' | 'captured_at_epoch_secs'>[];
}

/** The newest `limit` sessions that recorded context usage, newest first. */
export async function readContextUsage(browse: BrowsePort, copy: CopyPort, limit: number): Promise<ContextUsageSession[]> {
  const out: ContextUsageSession[] = [];
  // Sessions are read newest first until `limit` of them hold usage (most sessions hold some).
  for (const session of await browse.listSessionSummaries({ limit: limit * 4 })) {
    if (out.length >= limit) break;
    const { usage } = await copy.readSessionExtras(session.id);
    if (usage.length === 0) continue;
    out.push({
      session_id: session.id,
      source: session.source,
      project: session.project,
      title: describeSessionTitle(session.title, session.firstPrompt),
      start_ms: session.startMs,
      snapshots: [...usage]
        .sort((a, b) => a.captured_at_epoch_secs - b.captured_at_epoch_secs)
        .map(({ used_tokens, max_tokens, usage_ratio, captured_at_epoch_secs }) => ({ used_tokens, max_tokens, usage_ratio, captured_at_epoch_secs })),
    });
  }
  return out;
}
