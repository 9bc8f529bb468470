import { buildFieldDoc } from '../digest/session-fields.js';
import { FIELDS_VERSION } from '../fields/field-doc.js';
import type { IngestPort } from '../store/ports.js';
import type { SessionFieldDoc } from '../store/types.js';
import { yieldToEventLoop } from './yield.js';

/** Sessions whose fields are made and stored together. */
const BATCH = 32;

/**
 * Make the fields of every session that has none, or older ones (FIELDS_VERSION): sessions indexed before fields
 * existed, or whose projection could not be written. A session's fields are otherwise made where its projection
 * is (project-session.ts). Stops between batches when asked; what is left is done by the next run.
 */
export async function fillSessionFields(store: IngestPort, stopped: () => boolean): Promise<number> {
  const stale = await store.listStaleSessionFields(FIELDS_VERSION);
  let filled = 0;
  for (let at = 0; at < stale.length && !stopped(); at += BATCH) {
    const docs: SessionFieldDoc[] = [];
    for (const id of stale.slice(at, at + BATCH)) {
      await yieldToEventLoop();
      const session = await store.getSession(id);
      if (!session) continue;
      docs.push(buildFieldDoc({ session, entries: await store.listEntries(id), anchors: await store.listAnchors(id) }));
    }
    await store.putSessionFields(docs);
    filled += docs.length;
  }
  return filled;
}
