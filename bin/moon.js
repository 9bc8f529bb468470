#!/usr/bin/env node
const args = process.argv.slice(2);
// session-start counts the tokens it prints with a 1 MB rank table: unless the machine is saturated, start
// loading it on a worker thread now, while the CLI loads (the hook has 300 ms in all; src/text/tokens.ts). Not
// for user-prompt-submit: it is off by default, and a process that ends while the table loads waits for the load.
if (args.includes('hook') && args.includes('session-start') && !args.includes('--capture')) {
  (await import('../dist/text/tokens.js')).preloadTokenCounter();
}
const { runCli } = await import('../dist/interfaces/cli/main.js');

process.exitCode = await runCli(args);
