#!/usr/bin/env node
// After `tsc`: dist/build-id.json names this build (DaemonLockPayload.build_uuid), so a daemon started by an
// older build is told apart from one started by this one.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/build-id.json', import.meta.url), `${JSON.stringify({ build_uuid: randomUUID(), built_at: new Date().toISOString() })}\n`);
