/**
 * `new Date(ms).toISOString()` in integer arithmetic, for the times every answer about an order carries (two
 * per order). The builtin allocates a Date and goes through V8's date cache, which makes it two to three times
 * slower than this, a noticeable share of presenting an order on the cold read path (BENCHMARKS.md).
 * Times outside years 0000-9999 (which the builtin writes with a sign and six digits) and values that are
 * not whole milliseconds go to the builtin, which also throws for what is no time at all.
 */

const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z in milliseconds since the epoch. */
const FIRST_MS = -62_167_219_200_000;
const END_MS = 253_402_300_800_000;

/** Days since 1970-01-01 to [year, month 1-12, day 1-31] (Howard Hinnant's `civil_from_days`). */
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

function threeDigits(value: number): string {
  return value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`;
}

function fourDigits(value: number): string {
  return value < 1000 ? `${value}`.padStart(4, '0') : `${value}`;
}

/** The ISO 8601 UTC form with milliseconds, exactly as `Date.prototype.toISOString` writes it. */
export function isoTimestamp(msSinceEpoch: number): string {
  if (!Number.isInteger(msSinceEpoch) || msSinceEpoch < FIRST_MS || msSinceEpoch >= END_MS) {
    return new Date(msSinceEpoch).toISOString();
  }
  const days = Math.floor(msSinceEpoch / MS_PER_DAY);
  let rest = msSinceEpoch - days * MS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const milliseconds = rest - seconds * 1000;
  return (
    `${fourDigits(year)}-${twoDigits(month)}-${twoDigits(day)}T` +
    `${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${threeDigits(milliseconds)}Z`
  );
}
