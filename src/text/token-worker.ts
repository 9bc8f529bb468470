import { parentPort } from 'node:worker_threads';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { COUNT_OPTIONS } from './tokens.js';

/** The token-counting thread (src/text/tokens.ts): `{id, texts}` in, `{id, counts}` out. */
parentPort?.on('message', (message: { id: number; texts: string[] }) => {
  try {
    parentPort!.postMessage({ id: message.id, counts: message.texts.map((text) => countTokens(text, COUNT_OPTIONS)) });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: (error as Error).message });
  }
});
