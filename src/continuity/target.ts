/** What choosing a target needs to know of a session. */
export interface SessionSpan {
  id: string;
  project: string | null;
  cwd: string | null;
  parentSessionId: string | null;
  startMs: number | null;
  endMs: number | null;
}

/**
 * The session that continues `source` when none is named: the newest other main session (no subagent) of the same
 * project — the same working directory, or the same project name when the source has no cwd — that started
 * after the source ended (its last timestamp, else its first). Ties go to the smaller id. Null when there is none,
 * or when the source has no time or no project to compare by.
 */
export function chooseTargetSession(source: SessionSpan, candidates: readonly SessionSpan[]): string | null {
  const sourceEnd = source.endMs ?? source.startMs;
  if (sourceEnd === null) return null;
  if (source.cwd === null && source.project === null) return null;
  const sameProject = (session: SessionSpan): boolean =>
    source.cwd !== null ? session.cwd === source.cwd : session.project !== null && session.project.toLowerCase() === source.project!.toLowerCase();
  let best: SessionSpan | null = null;
  for (const session of candidates) {
    if (session.id === source.id || session.parentSessionId !== null || !sameProject(session)) continue;
    if (session.startMs === null || session.startMs <= sourceEnd) continue;
    if (best === null || session.startMs > best.startMs! || (session.startMs === best.startMs && session.id < best.id)) best = session;
  }
  return best?.id ?? null;
}
