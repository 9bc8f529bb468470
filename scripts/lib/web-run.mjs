// What the web view's test, bench and screenshots share: `moon serve` on a home, and Debian's chromium through
// playwright-core with the flags this machine needs (no background networking: the closed network refuses it).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin', 'moon.js');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Debian's chromium (or the one at `executablePath`), headless. */
export function launchChromium(executablePath = '/usr/bin/chromium') {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/** `moon serve --port 0` on `home` (the built CLI); resolves once it says where it serves. */
export function serveHome(home, env = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
    env: { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving (http:\/\/\S+)/.exec(stderr);
      if (match) resolve({ url: match[1], child });
    });
    child.on('exit', (code) => reject(new Error(`moon serve exited ${code}: ${stderr}`)));
  });
}
