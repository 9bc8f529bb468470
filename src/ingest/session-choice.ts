import type { IngestTx } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';
import { sha256 } from '../text/hash.js';
import type { IndexFileOptions } from './index-file.js';

/** Why a file is recorded but not indexed: another file holding the same transcript is indexed already. */
export const DUPLICATE = 'duplicate';

export interface SessionChoice {
  sessionId: string;
  /** A rebuilt session's archive path this file takes over. */
  adopted: string | null;
  /** Another file (another path, or another machine's file) holds this id: settle by content. */
  contested: StoredSession | null;
  /** The id this file takes when its content differs from the holder's. */
  suffixed: string;
}

/**
 * The id this file's session is stored under. A session rebuilt from the raw archive is owned by its archive
 * copy only until an original transcript claims it: that file takes it over (same id, re-read whole), so
 * indexing the original transcripts after `moon rebuild` adds no duplicate. When another file holds the id —
 * a copy of the transcript, the same transcript on another machine sharing the database, or a different
 * transcript reusing the id — the contents decide (settleContest). The suffixed id is checked first, so the
 * second of two different files sharing an id takes back its own suffixed session.
 */
export async function chooseSessionId(store: IngestTx, path: string, id: string, options: Pick<IndexFileOptions, 'sessionId' | 'adoptFrom'>): Promise<SessionChoice> {
  const suffixed = `${id}~${sha256(path).slice(0, 8)}`;
  const plain = { sessionId: id, adopted: null, contested: null, suffixed };
  if (options.sessionId !== undefined) return plain;
  const isMine = (session: StoredSession): boolean => session.path === path && (session.machine ?? null) === store.machine;
  const rebuilt = (owner: StoredSession | null): boolean =>
    owner !== null && options.adoptFrom !== undefined && owner.path !== path && owner.path.startsWith(options.adoptFrom);
  const mine = await store.getSession(suffixed);
  if (mine && (isMine(mine) || rebuilt(mine))) return { ...plain, sessionId: suffixed, adopted: isMine(mine) ? null : mine.path };
  const owner = await store.getSession(id);
  if (!owner || isMine(owner)) return plain;
  if (rebuilt(owner)) return { ...plain, adopted: owner.path };
  return { ...plain, contested: owner };
}

/**
 * Two files with one session id, by their record keys: nothing new in this one (a copy, or the same transcript
 * indexed on another machine) — record it, index nothing; this one holds all the other has and more (it grew
 * further) — it takes the session over, re-read whole; each has records the other lacks — a different
 * transcript, indexed beside it under a suffixed id.
 */
export async function settleContest(store: IngestTx, holder: StoredSession, keys: readonly string[]): Promise<'duplicate' | 'take-over' | 'different'> {
  const held = new Set(await store.listEntryKeys(holder.id));
  const mine = new Set(keys);
  if ([...mine].every((key) => held.has(key))) return 'duplicate';
  if ([...held].every((key) => mine.has(key))) return 'take-over';
  return 'different';
}

