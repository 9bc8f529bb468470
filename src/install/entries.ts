import { parseMoonHookCommand } from './commands.js';
import { type ConfigDocument, type KeyPath, deepEqual, describePath, isPlainObject, unexpectedShape } from './document.js';
import type { Entry, HookEntry, KeyEntry } from './targets.js';

/**
 * What an install did to one file, kept so uninstall can take exactly that back out: found by content (the key,
 * the hook command), not by position, so it works in a file the user edited since.
 */
export type Change =
  | {
      kind: 'key';
      path: string[];
      value: unknown;
      /** The value the key held before moon replaced it (absent: moon added the key). */
      previous?: unknown;
      /** Parent objects (tables) moon created for it, outermost first. */
      created: string[][];
    }
  | {
      kind: 'hook';
      event: string;
      command: string;
      /** An older moon hook command moon re-pointed (absent: moon added the hook). */
      previousCommand?: string;
      /** Moon set `"async": true` on the handler it re-pointed (taken off again when it points it back). */
      madeAsync?: boolean;
      /** Moon created the event's list, and the `hooks` object. */
      createdEvent: boolean;
      createdHooks: boolean;
    };

/** A hook handler of moon's found in the file. */
interface FoundHook {
  group: number;
  handler: number;
  command: string;
  /** Claude Code's `"async": true` is set on the handler. */
  async: boolean;
}

/**
 * Add what is missing of `entries` to `doc`. An entry already there is left alone (installing twice adds nothing);
 * a moon hook or server pointing at another moon is re-pointed here. `known` are the changes recorded by earlier
 * installs into this file: re-pointing one of those updates it rather than recording a new one.
 */
export function addEntries(file: string, doc: ConfigDocument, entries: readonly Entry[], known: readonly Change[]): { changes: Change[]; done: string[] } {
  const changes = known.map((change) => ({ ...change }));
  const done: string[] = [];
  for (const entry of entries) {
    const note = entry.kind === 'key' ? addKey(file, doc, entry, changes) : addHook(file, doc, entry, changes);
    if (note) done.push(note);
  }
  return { changes, done };
}

function addKey(file: string, doc: ConfigDocument, entry: KeyEntry, changes: Change[]): string | null {
  const current = doc.get(entry.path);
  for (let depth = 1; depth < entry.path.length; depth += 1) {
    const parent = doc.get(entry.path.slice(0, depth));
    if (parent !== undefined && !isPlainObject(parent)) throw unexpectedShape(file, entry.path.slice(0, depth), 'an object');
  }
  if (isPlainObject(current) && Object.entries(entry.value).every(([key, value]) => deepEqual(current[key], value))) return null;
  if (current === undefined) {
    const created: string[][] = [];
    for (let depth = 1; depth < entry.path.length; depth += 1) {
      if (doc.get(entry.path.slice(0, depth)) === undefined) created.push(entry.path.slice(0, depth));
    }
    doc.set(entry.path, entry.value);
    changes.push({ kind: 'key', path: entry.path, value: entry.value, created });
    return `added ${describePath(entry.path)}`;
  }
  // Another moon's entry (or one written by hand): pointed here, its other settings (env, …) kept.
  const value = isPlainObject(current) ? { ...current, ...entry.value } : entry.value;
  doc.set(entry.path, value);
  const mine = changes.find((change) => change.kind === 'key' && pathEquals(change.path, entry.path));
  if (mine && mine.kind === 'key') mine.value = value;
  else changes.push({ kind: 'key', path: entry.path, value, previous: current, created: [] });
  return `pointed ${describePath(entry.path)} at this moon`;
}

function addHook(file: string, doc: ConfigDocument, entry: HookEntry, changes: Change[]): string | null {
  const hooks = doc.get(['hooks']);
  if (hooks !== undefined && !isPlainObject(hooks)) throw unexpectedShape(file, ['hooks'], 'an object of event names');
  const list = doc.get(['hooks', entry.event]);
  if (list !== undefined && !Array.isArray(list)) throw unexpectedShape(file, ['hooks', entry.event], 'a list of hook groups');
  const found = findMoonHooks(doc, entry.event).filter((hook) => parseMoonHookCommand(hook.command)?.event === entry.moonEvent);
  const same = found.find((hook) => hook.command === entry.command);
  if (same) {
    // An install from before the hook ran in the background: made asynchronous in place (and only that).
    if (entry.async !== true || same.async) return null;
    doc.set(['hooks', entry.event, same.group, 'hooks', same.handler, 'async'], true);
    return `made the ${entry.event} hook run in the background`;
  }
  const stale = found[0];
  if (stale) {
    doc.set(['hooks', entry.event, stale.group, 'hooks', stale.handler, 'command'], entry.command);
    const madeAsync = entry.async === true && !stale.async;
    if (madeAsync) doc.set(['hooks', entry.event, stale.group, 'hooks', stale.handler, 'async'], true);
    const mine = changes.find((change) => change.kind === 'hook' && change.event === entry.event && change.command === stale.command);
    if (mine && mine.kind === 'hook') {
      mine.command = entry.command;
      if (madeAsync) mine.madeAsync = true;
    } else {
      changes.push({ kind: 'hook', event: entry.event, command: entry.command, previousCommand: stale.command, ...(madeAsync ? { madeAsync } : {}), createdEvent: false, createdHooks: false });
    }
    return `pointed the ${entry.event} hook at this moon`;
  }
  const group = { ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}), hooks: [{ type: 'command', command: entry.command, timeout: entry.timeout, ...(entry.async === true ? { async: true } : {}) }] };
  const createdHooks = hooks === undefined;
  const createdEvent = list === undefined;
  if (createdEvent) doc.set(['hooks', entry.event], [group]);
  else doc.append(['hooks', entry.event], group);
  changes.push({ kind: 'hook', event: entry.event, command: entry.command, createdEvent, createdHooks });
  return `added the ${entry.event} hook`;
}

/** Take `changes` back out of `doc`, last first; entries the user already removed are simply not found. */
export function removeChanges(doc: ConfigDocument, changes: readonly Change[]): string[] {
  const done: string[] = [];
  for (const change of [...changes].reverse()) {
    const note = change.kind === 'key' ? removeKey(doc, change) : removeHook(doc, change);
    if (note) done.push(note);
  }
  return done;
}

function removeKey(doc: ConfigDocument, change: Extract<Change, { kind: 'key' }>): string | null {
  let note: string | null = null;
  if (change.previous !== undefined) {
    doc.set(change.path, change.previous);
    note = `restored ${describePath(change.path)}`;
  } else if (doc.get(change.path) !== undefined) {
    doc.remove(change.path);
    note = `removed ${describePath(change.path)}`;
  }
  for (const parent of [...change.created].reverse()) removeIfEmpty(doc, parent);
  return note;
}

function removeHook(doc: ConfigDocument, change: Extract<Change, { kind: 'hook' }>): string | null {
  const found = findMoonHooks(doc, change.event).filter((hook) => hook.command === change.command);
  for (const hook of found.reverse()) {
    if (change.previousCommand !== undefined) {
      doc.set(['hooks', change.event, hook.group, 'hooks', hook.handler, 'command'], change.previousCommand);
      if (change.madeAsync === true) doc.remove(['hooks', change.event, hook.group, 'hooks', hook.handler, 'async']);
      continue;
    }
    const group = doc.get(['hooks', change.event, hook.group]) as Record<string, unknown>;
    const handlers = group.hooks as unknown[];
    const onlyMoon = handlers.length === 1 && Object.keys(group).every((key) => key === 'matcher' || key === 'hooks');
    doc.remove(onlyMoon ? ['hooks', change.event, hook.group] : ['hooks', change.event, hook.group, 'hooks', hook.handler]);
  }
  if (change.createdEvent) removeIfEmpty(doc, ['hooks', change.event]);
  if (change.createdHooks) removeIfEmpty(doc, ['hooks']);
  if (found.length === 0) return null;
  return change.previousCommand !== undefined ? `restored the ${change.event} hook's earlier command` : `removed the ${change.event} hook`;
}

function removeIfEmpty(doc: ConfigDocument, path: KeyPath): void {
  const value = doc.get(path);
  if ((Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0)) doc.remove(path);
}

/** Moon's hook handlers under `hooks.<event>`: command handlers whose command runs moon's `hook`. */
export function findMoonHooks(doc: Pick<ConfigDocument, 'get'>, event: string): FoundHook[] {
  const list = doc.get(['hooks', event]);
  if (!Array.isArray(list)) return [];
  const found: FoundHook[] = [];
  list.forEach((group, groupIndex) => {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((handler, handlerIndex) => {
      if (isPlainObject(handler) && typeof handler.command === 'string' && parseMoonHookCommand(handler.command)) {
        found.push({ group: groupIndex, handler: handlerIndex, command: handler.command, async: handler.async === true });
      }
    });
  });
  return found;
}

function pathEquals(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}
