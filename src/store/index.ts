export type * from './store.js';
export { openSqliteStore } from './sqlite/sqlite-store.js';
