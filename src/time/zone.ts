import { DateTime, IANAZone } from 'luxon';

/** Zones checked by this process: luxon asks Intl each time (~2 ms), once per recall in a server that keeps running. */
const checked = new Map<string, boolean>();

export function isValidTimezone(name: string): boolean {
  let valid = checked.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name);
    // Bounded: names come from configuration and requests, and a flood of odd ones must not grow a process.
    if (checked.size < 256) checked.set(name, valid);
  }
  return valid;
}

export function systemTimezone(): string {
  const zone = DateTime.local().zoneName;
  return zone && IANAZone.isValidZone(zone) ? zone : 'UTC';
}
