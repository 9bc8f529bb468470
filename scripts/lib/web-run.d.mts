/** Types of scripts/lib/web-run.mjs: `moon serve` on a home, and Debian's chromium through playwright-core. */
import type { ChildProcess } from 'node:child_process';
import type { Browser } from 'playwright-core';

export declare const CHROMIUM_ARGS: string[];
export declare function launchChromium(executablePath?: string): Promise<Browser>;
export declare function serveHome(home: string, env?: Record<string, string>): Promise<{ url: string; child: ChildProcess }>;
