import { DateTime, IANAZone } from 'luxon';

export function isValidTimezone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

export function systemTimezone(): string {
  const zone = DateTime.local().zoneName;
  return zone && IANAZone.isValidZone(zone) ? zone : 'UTC';
}
