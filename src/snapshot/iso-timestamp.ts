const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ZERO = '0'.charCodeAt(0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const MS_PER_DAY = 86_400_000;
/** From 0000-03-01, where the first era begins, to 1970-01-01. */
const DAYS_FROM_ERA_ZERO_TO_EPOCH = 719_468;

/**
 * An ISO 8601 UTC time with milliseconds (`2019-11-05T20:11:08.821Z`) naming a real calendar time, in ms since
 * the epoch; undefined for anything else. Parsed by hand: every snapshot order has two timestamps, and
 * `Date.parse` followed by the `toISOString` round trip that refuses what Date would roll over (February 30th,
 * hour 24) costs several times more, some 18 s of a 10,000,000-order import (BENCHMARKS.md). Accepts exactly the
 * strings that round trip does: the tests hold the two side by side.
 */
export function parseIsoTimestamp(text: string): number | undefined {
  if (!ISO_TIMESTAMP_PATTERN.test(text)) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const msOfDay = ((hour * 60 + minute) * 60 + second) * 1000 + digitsAt(text, 20, 3);
  return daysSinceEpoch(year, month, day) * MS_PER_DAY + msOfDay;
}

/** The decimal number written in `count` digits from `start`; the pattern has checked they are digits. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) value = value * 10 + (text.charCodeAt(i) - ZERO);
  return value;
}

function daysInMonth(year: number, month: number): number {
  const isLeapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && isLeapYear ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar, as Date counts them (Howard
 * Hinnant's days_from_civil): years are counted from March, so the leap day ends a year, in eras
 * of 400 years that each hold 146097 days.
 */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - DAYS_FROM_ERA_ZERO_TO_EPOCH;
}
