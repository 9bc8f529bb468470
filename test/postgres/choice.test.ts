import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { findPostgresBin } from '../../scripts/lib/postgres-server.mjs';
import { makeTempDir } from '../helpers/cli.js';
import { choosePostgres } from '../helpers/postgres-target.js';

/**
 * Which PostgreSQL the tests run on: a server only where one with pgvector is found, MOON_TEST_PG_BIN the only
 * place looked at when set, MOON_TEST_DATABASE_URL before any binaries, and MOON_TEST_POSTGRES=server failing
 * instead of falling back. Fake installations (shell scripts named like the server's binaries) stand in for
 * real ones: only file presence and pg_config's answer are read.
 */
const temp = makeTempDir('moon-pg-choice-');
afterAll(() => temp.cleanup());

let installs = 0;
/** A fake installation: bin/ with initdb and postgres (and pg_config naming share/), share/extension/ with or without pgvector. */
function fakeInstall(options: { vector: boolean; initdb?: boolean }): string {
  installs += 1;
  const root = join(temp.path, `pg-${installs}`);
  const bin = join(root, 'bin');
  const share = join(root, 'share');
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(share, 'extension'), { recursive: true });
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  if (options.initdb !== false) script('initdb', 'exit 0');
  script('postgres', 'exit 0');
  script('pg_config', `[ "$1" = --sharedir ] && echo '${share}'`);
  if (options.vector) writeFileSync(join(share, 'extension', 'vector.control'), "default_version = '0.8.0'\n");
  return bin;
}

describe('finding a PostgreSQL server for the tests', () => {
  test('MOON_TEST_PG_BIN with initdb and pgvector is the server', () => {
    const bin = fakeInstall({ vector: true });
    expect(findPostgresBin({ MOON_TEST_PG_BIN: bin })).toEqual({ bin });
    expect(choosePostgres({ MOON_TEST_PG_BIN: bin })).toMatchObject({ kind: 'server', bin });
  });

  test('a server without pgvector counts as none, and the reason says so and names the install script', () => {
    const bin = fakeInstall({ vector: false });
    const found = findPostgresBin({ MOON_TEST_PG_BIN: bin });
    expect(found.bin).toBeNull();
    if (found.bin === null) {
      expect(found.reason).toContain(`the server in ${bin} has no pgvector`);
      expect(found.reason).toContain('scripts/ci/install-postgres.sh');
    }
    const choice = choosePostgres({ MOON_TEST_PG_BIN: bin });
    expect(choice.kind).toBe('embedded');
    expect(choice.reason).toContain('has no pgvector');
  });

  test('a folder without initdb is no server', () => {
    const bin = fakeInstall({ vector: true, initdb: false });
    const found = findPostgresBin({ MOON_TEST_PG_BIN: bin });
    expect(found).toMatchObject({ bin: null });
    if (found.bin === null) expect(found.reason).toContain(`${bin} has no initdb`);
  });

  test('MOON_TEST_PG_BIN set is the only place looked at, even when it holds nothing', () => {
    const found = findPostgresBin({ MOON_TEST_PG_BIN: join(temp.path, 'nowhere'), PATH: process.env.PATH });
    expect(found.bin).toBeNull();
    if (found.bin === null) expect(found.reason).toContain('in MOON_TEST_PG_BIN');
  });

  test('without MOON_TEST_PG_BIN, pg_config on PATH is asked for its bindir', () => {
    const bin = fakeInstall({ vector: true });
    // A pg_config on PATH that names the fake installation's bin.
    const pathDir = join(temp.path, 'path-bin');
    mkdirSync(pathDir, { recursive: true });
    writeFileSync(join(pathDir, 'pg_config'), `#!/bin/sh\n[ "$1" = --bindir ] && echo '${bin}'\n`);
    chmodSync(join(pathDir, 'pg_config'), 0o755);
    expect(findPostgresBin({ PATH: `${pathDir}:${process.env.PATH}` })).toEqual({ bin });
  });

  test('MOON_TEST_DATABASE_URL is a server, before any binaries', () => {
    const url = 'postgres://moon@127.0.0.1:5999/tests';
    expect(choosePostgres({ MOON_TEST_DATABASE_URL: url, MOON_TEST_PG_BIN: join(temp.path, 'nowhere') })).toMatchObject({ kind: 'server', url });
  });

  test('MOON_TEST_POSTGRES=server with no server fails instead of falling back', () => {
    expect(() => choosePostgres({ MOON_TEST_POSTGRES: 'server', MOON_TEST_PG_BIN: join(temp.path, 'nowhere') })).toThrow(
      /MOON_TEST_POSTGRES=server, but no PostgreSQL server with pgvector found/,
    );
  });

  test('MOON_TEST_POSTGRES=embedded takes the embedded engine even beside a server', () => {
    const bin = fakeInstall({ vector: true });
    expect(choosePostgres({ MOON_TEST_POSTGRES: 'embedded', MOON_TEST_PG_BIN: bin })).toMatchObject({ kind: 'embedded' });
  });

  test('an unknown MOON_TEST_POSTGRES is an error that names the variable', () => {
    expect(() => choosePostgres({ MOON_TEST_POSTGRES: 'sometimes' })).toThrow('MOON_TEST_POSTGRES must be one of auto, server, embedded (got "sometimes")');
  });
});
