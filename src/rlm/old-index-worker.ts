import { parentPort, workerData } from 'node:worker_threads';
import { answerOldIndexRequest, type OldIndexRequest } from './old-index.js';

/** The thread that reads the index at the output (src/rlm/old-index.ts): one request in, one answer out. */
parentPort?.postMessage(answerOldIndexRequest(workerData as OldIndexRequest));
