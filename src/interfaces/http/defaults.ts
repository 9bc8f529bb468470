/** Where `moon serve` listens unless told otherwise (kept apart so the CLI's help does not load the server). */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7077;
