import { parentPort, workerData } from 'node:worker_threads';
import type { Entry } from '../model.js';
import { rankSessionTerms } from '../normalize/keywords.js';
import type { SessionDoc } from '../project/doc.js';
import type { FileState } from '../store/types.js';
import { serializeError } from './errors-across.js';
import { type IndexFileOptions, prepareFile } from './index-file.js';
import { writeProjection } from './project-session.js';
import { buildFieldDoc } from '../digest/session-fields.js';
import { type IngestSettings, createIngestContext } from './settings.js';
import { giveWayToForeground } from '../runtime/foreground.js';
import { lowerPriority } from '../runtime/priority.js';
import { localNumbering } from '../store/postings/term-numbering.js';

/**
 * An ingest worker: the per-file work that needs no store — reading, hashing, parsing, cleaning and redacting
 * a transcript; a session's keyword terms; rendering and writing its projection, and making its fields — so the main thread is left
 * with the store's writes. Jobs arrive as `{ id, kind, input }` and are answered `{ id, result }` or
 * `{ id, error }`; a file's bytes travel back without a copy.
 */
export type WorkerJob =
  | { kind: 'prepare'; input: { path: string; previous: FileState | null; options: Omit<IndexFileOptions, 'adoptFrom' | 'sessionId'> } }
  | { kind: 'terms'; input: { entries: Entry[] } }
  | { kind: 'render'; input: { doc: Omit<SessionDoc, 'corpus'>; corpus: { sessionCount: number; counts: [string, number][] } | null } };

const port = parentPort;
if (port) {
  const { background, ...settings } = workerData as IngestSettings & { background?: boolean };
  // A background run's workers give way to the agent's hooks as its writer does (runtime/foreground.ts): before each
  // job, so a batch of renders queued here does not run on beside a hook. One job at a time, in order.
  if (background === true) lowerPriority();
  const context = createIngestContext(settings);
  let queue = Promise.resolve();
  port.on('message', (message: { id: number } & WorkerJob) => {
    if (background !== true) return answer(message);
    queue = queue.then(async () => {
      await giveWayToForeground(context.paths.home).catch(() => 0);
      answer(message);
    });
  });
  const answer = (message: { id: number } & WorkerJob): void => {
    try {
      if (message.kind === 'prepare') {
        const { path, previous, options } = message.input;
        const prepared = prepareFile(context, path, previous, options);
        const holdsBytes = prepared.kind === 'read' || prepared.kind === 'document';
        const transfer = holdsBytes ? [prepared.buffer.buffer as ArrayBuffer] : [];
        // A small file's bytes may share Node's pooled ArrayBuffer: copy those rather than transfer the pool.
        if (holdsBytes && prepared.buffer.byteLength !== prepared.buffer.buffer.byteLength) {
          prepared.buffer = Buffer.from(prepared.buffer);
          transfer[0] = prepared.buffer.buffer as ArrayBuffer;
        }
        // The terms its documents' postings use that this worker numbered since its last answer, sent before
        // anything that uses them (store/postings/term-numbering.ts).
        port.postMessage({ id: message.id, result: prepared, terms: localNumbering.takeNew() }, transfer);
      } else if (message.kind === 'terms') {
        port.postMessage({ id: message.id, result: rankSessionTerms(message.input.entries) });
      } else {
        const { doc, corpus } = message.input;
        const counts = new Map(corpus?.counts ?? []);
        const path = writeProjection(context, {
          ...doc,
          ...(corpus ? { corpus: { sessionCount: corpus.sessionCount, countSessionsWith: (term: string) => counts.get(term) ?? 0 } } : {}),
        });
        port.postMessage({ id: message.id, result: { path, fields: buildFieldDoc(doc) } });
      }
    } catch (error) {
      port.postMessage({ id: message.id, error: serializeError(error) });
    }
  };
}
