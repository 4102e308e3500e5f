/**
 * `Date.prototype.toISOString`, without its cost. Node 20's V8 works out the local time zone's
 * name while it writes the UTC string, and the first time it does, ICU loads its time zone data:
 * ~0.9 MiB resident in every process that wrote a timestamp (a teammate's claimedAt, a message's
 * timestamp), for a name it then drops. The UTC fields need no time zone (docs/architecture.md,
 * "Scale"). The same text as toISOString for every valid time, extended years included; an
 * invalid one throws as it does.
 */
export function isoTime(at: Date | number = Date.now()): string {
  const date = typeof at === 'number' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  const year = date.getUTCFullYear();
  const yearText = year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
  return `${yearText}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** isoTime of a time that may be missing (a cron job that never runs again). */
export function isoTimeOrNull(at: Date | null | undefined): string | null {
  return at ? isoTime(at) : null;
}
