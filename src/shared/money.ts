/**
 * Money and volumes are decimal strings with at most two decimals in the API and integer cents inside
 * (docs/architecture.md "Conventions", Values). Nothing here uses floating point.
 */
export const MONEY_PATTERN = '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,2})?$';
const moneyRegExp = new RegExp(MONEY_PATTERN);

export function isMoney(value: string): boolean {
  return moneyRegExp.test(value);
}

/** "412.5" -> 41250. Throws on anything that is not a money string. */
export function toCents(value: string): number {
  if (!moneyRegExp.test(value)) throw new RangeError(`not a money string: ${value}`);
  const [whole = '0', fraction = ''] = value.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** toCents, with null (or a part left out) for no amount. */
export function toCentsOrNull(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : toCents(value);
}

/** 41250 -> "412.50". */
export function fromCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not an integer number of cents: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  const whole = Math.floor(absolute / 100);
  const fraction = String(absolute % 100).padStart(2, '0');
  return `${sign}${whole}.${fraction}`;
}
