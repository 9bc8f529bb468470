import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { REPO } from '../helpers/cli.js';

/** Background work runs below normal priority, and the threads it starts afterwards with it. */
describe('lowerPriority', () => {
  const priority = join(REPO, 'dist', 'runtime', 'priority.js');
  const run = (script: string, nice = 0): string =>
    execFileSync('nice', ['-n', String(nice), process.execPath, '-e', script], { encoding: 'utf8' }).trim();

  test.skipIf(process.platform === 'win32')('lowers a process to nice 10 and its workers started later with it; never raises a lower one', () => {
    const script = `
      const { getPriority } = require('node:os');
      const { Worker } = require('node:worker_threads');
      import(${JSON.stringify(pathToFileURL(priority).href)}).then(({ lowerPriority }) => {
        lowerPriority();
        const worker = new Worker("const { parentPort } = require('node:worker_threads'); parentPort.postMessage(require('node:os').getPriority())", { eval: true });
        worker.once('message', (inWorker) => { console.log(getPriority() + ' ' + inWorker); worker.terminate(); });
      });`;
    expect(run(script)).toBe('10 10');
    expect(run(script, 15)).toBe('15 15');
  });

  test.skipIf(process.platform === 'win32')('lowers a process it started to nice 10 at once; never raises one already lower', () => {
    const script = (childNice: number): string => `
      const { spawn } = require('node:child_process');
      const { getPriority } = require('node:os');
      import(${JSON.stringify(pathToFileURL(priority).href)}).then(({ lowerChildPriority }) => {
        const child = spawn('nice', ['-n', '${childNice}', 'sleep', '5'], { stdio: 'ignore' });
        setTimeout(() => {
          lowerChildPriority(child.pid);
          console.log(getPriority() + ' ' + getPriority(child.pid));
          child.kill();
        }, 200);
      });`;
    expect(run(script(0))).toBe('0 10');
    expect(run(script(15))).toBe('0 15');
  });
});
