/** The store's face: the ports every engine implements and the shapes they share. Engines are picked in moon.ts. */
export type * from './ports.js';
export type * from './types.js';
export { buildIndexDocument, buildTrigramDocument, COLUMN_WEIGHTS, CONTEXT_RADIUS } from './index-document.js';
