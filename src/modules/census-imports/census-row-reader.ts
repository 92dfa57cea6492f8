/**
 * A census import's rows read one by one (docs/decisions.md "Census imports"): each column has one reader, a
 * table row (STYLE habit 14), that turns the cell's text into the value the member or dependent API takes, or
 * says why it cannot. A blank cell is "not given": it leaves the stored value as it is (a file never clears a
 * field). Pure: no database, no clock.
 */
import { US_STATES } from '../../http/schemas.ts';
import { parseDate } from '../../shared/dates.ts';
import { normalizeSsn, ssnProblem } from '../../shared/ssn.ts';
import { x12TextProblem } from '../../shared/x12-text.ts';
import { BIOLOGICAL_SEXES, EMPLOYMENT_STATUSES, PAY_FREQUENCIES, TERMINATION_REASONS } from '../members/member.table.ts';
import { DEPENDENT_RELATIONSHIPS, type DependentRelationship } from '../plans/coverage-tier.ts';

/** The documented columns, in the documented order; a file may hold them in any order, and must hold the first two. */
export const CENSUS_IMPORT_COLUMNS = [
  'employee_id',
  'relationship',
  'first_name',
  'middle_name',
  'last_name',
  'dob',
  'sex',
  'ssn',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'zip_code',
  'email',
  'phone',
  'hire_date',
  'termination_date',
  'termination_reason',
  'employment_type',
  'scheduled_hours',
  'pay_frequency',
  'annual_pay',
  'business_unit',
  'subclass',
] as const;
export type CensusColumn = (typeof CENSUS_IMPORT_COLUMNS)[number];
export const REQUIRED_CENSUS_COLUMNS: readonly CensusColumn[] = ['employee_id', 'relationship'];

export type CensusRelationship = 'employee' | DependentRelationship;
export const CENSUS_RELATIONSHIPS: readonly CensusRelationship[] = ['employee', ...DEPENDENT_RELATIONSHIPS];

/** Longest cell read: longer is an error (the API's longest text field is 255 characters). */
export const MAX_CELL_LENGTH = 255;

/** A problem of one row: its file line (header = line 1; the JSON rows count from 2 the same way), its column. */
export interface CensusProblem {
  line: number | null;
  column: string | null;
  message: string;
}

/** The values a row gives, by the API's field names; a field absent was left blank. */
export interface CensusValues {
  first_name?: string;
  middle_name?: string;
  last_name?: string;
  dob?: string;
  biological_sex?: (typeof BIOLOGICAL_SEXES)[number];
  ssn?: string;
  address?: { line1: string; line2: string | null; city: string; state: string; zip_code: string };
  email?: string;
  phone_number?: string;
  hire_date?: string;
  termination_date?: string;
  termination_reason?: (typeof TERMINATION_REASONS)[number];
  employment_status?: (typeof EMPLOYMENT_STATUSES)[number];
  hours_worked?: number;
  pay_frequency?: (typeof PAY_FREQUENCIES)[number];
  /** Cents; read and checked, not applied (pay rates are their own records: docs/decisions.md "Census imports"). */
  annual_pay?: number;
  /** A business unit or subclass of the employer: its id or its name, resolved by the check. */
  business_unit?: string;
  subclasses?: string[];
}

export interface CensusFileRow {
  line: number;
  employeeId: string;
  relationship: CensusRelationship;
  values: CensusValues;
}

type Reading = { value: unknown } | { error: string };
type Reader = (text: string) => Reading;

const oneOf =
  (values: readonly string[], aliases: Readonly<Record<string, string>> = {}): Reader =>
  (text) => {
    const folded = text.toLowerCase();
    const value = aliases[folded] ?? folded;
    return values.includes(value) ? { value } : { error: `Must be one of ${values.join(', ')}.` };
  };
const date: Reader = (text) => {
  const value = parseDate(text);
  return value === undefined ? { error: 'Must be a calendar date, YYYY-MM-DD.' } : { value };
};
/** First characters that make a spreadsheet read a cell as a formula (as shared/csv.ts lists them): no name or address starts so. */
const FORMULA_START = /^(?:[=+@]|-[^A-Za-z])/;
const name: Reader = (text) => {
  if (FORMULA_START.test(text)) return { error: 'Starts like a spreadsheet formula (= + - @): not a name or an address.' };
  const problem = x12TextProblem(text);
  return problem === undefined ? { value: text } : { error: problem };
};
const text: Reader = (value) => ({ value });
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MONEY = /^-?[0-9]{1,10}(\.[0-9]{1,2})?$/;

/** Each column's reader and the field it fills; `address_*`, `city`, `state` and `zip_code` make the address together. */
const READERS: Readonly<Record<Exclude<CensusColumn, 'employee_id' | 'relationship'>, { field: string; read: Reader }>> = {
  first_name: { field: 'first_name', read: name },
  middle_name: { field: 'middle_name', read: name },
  last_name: { field: 'last_name', read: name },
  dob: { field: 'dob', read: date },
  sex: { field: 'biological_sex', read: oneOf(BIOLOGICAL_SEXES, { m: 'male', f: 'female' }) },
  ssn: {
    field: 'ssn',
    read: (value) => {
      const digits = normalizeSsn(value);
      const problem = ssnProblem(digits);
      // Never the value itself: the message says what is wrong only.
      return problem === undefined ? { value: digits } : { error: problem };
    },
  },
  address_line1: { field: 'address_line1', read: name },
  address_line2: { field: 'address_line2', read: name },
  city: { field: 'city', read: name },
  state: {
    field: 'state',
    read: (value) =>
      (US_STATES as readonly string[]).includes(value.toUpperCase())
        ? { value: value.toUpperCase() }
        : { error: 'Must be a US state code (50 states and DC).' },
  },
  zip_code: { field: 'zip_code', read: (value) => (/^[0-9]{5}(-[0-9]{4})?$/.test(value) ? { value } : { error: 'Must be a ZIP code: 12345 or 12345-6789.' }) },
  email: { field: 'email', read: (value) => (EMAIL.test(value) ? { value } : { error: 'Must be an email address.' }) },
  phone: {
    field: 'phone_number',
    read: (value) => {
      // Punctuation as people write phone numbers is dropped; the API stores digits only, at most 10.
      const digits = value.replace(/[\s().+-]/g, '');
      return /^[0-9]{1,10}$/.test(digits) ? { value: digits } : { error: 'Must be a phone number of at most 10 digits.' };
    },
  },
  hire_date: { field: 'hire_date', read: date },
  termination_date: { field: 'termination_date', read: date },
  termination_reason: { field: 'termination_reason', read: oneOf(TERMINATION_REASONS) },
  employment_type: { field: 'employment_status', read: oneOf(EMPLOYMENT_STATUSES) },
  scheduled_hours: {
    field: 'hours_worked',
    read: (value) => {
      const hours = /^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(value) ? Number(value) : Number.NaN;
      return hours >= 0 && hours <= 168 ? { value: hours } : { error: 'Must be hours per week, from 0 to 168.' };
    },
  },
  pay_frequency: { field: 'pay_frequency', read: oneOf(PAY_FREQUENCIES) },
  annual_pay: {
    field: 'annual_pay',
    read: (value) => {
      const plain = value.replace(/[$,]/g, '');
      if (!MONEY.test(plain) || plain.startsWith('-')) return { error: 'Must be an amount in dollars, at most 2 decimals, not negative.' };
      const [dollars, cents = ''] = plain.split('.');
      return { value: Number(dollars) * 100 + Number(cents.padEnd(2, '0')) };
    },
  },
  business_unit: { field: 'business_unit', read: text },
  subclass: {
    field: 'subclasses',
    read: (value) => {
      const names = value
        .split(';')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      return names.length > 50 ? { error: 'At most 50 subclasses, separated by ;.' } : { value: [...new Set(names)] };
    },
  },
};

/** The characters no cell may hold: NUL and the other C0 controls but tab (neither database nor carrier file takes them). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * One row of the file, checked on its own: its values, or every problem it has (one per column at fault).
 * `cells` maps each column of the header to the row's text (undefined past the row's end).
 */
export function readCensusRow(
  line: number,
  cells: Readonly<Partial<Record<CensusColumn, string | undefined>>>,
): { row?: CensusFileRow; problems: CensusProblem[] } {
  const problems: CensusProblem[] = [];
  const problem = (column: string, message: string) => problems.push({ line, column, message });
  const given = new Map<CensusColumn, string>();
  for (const column of CENSUS_IMPORT_COLUMNS) {
    const raw = cells[column];
    if (raw === undefined) continue;
    const cell = raw.trim();
    if (cell === '') continue;
    if (cell.length > MAX_CELL_LENGTH) problem(column, `Longer than ${MAX_CELL_LENGTH} characters.`);
    else if (CONTROL_CHARACTERS.test(cell)) problem(column, 'Holds a control character (such as NUL).');
    else given.set(column, cell);
  }
  const employeeId = given.get('employee_id');
  if (employeeId === undefined && !problems.some((p) => p.column === 'employee_id')) problem('employee_id', 'Required: the employee id in the payroll system.');
  const relationshipText = given.get('relationship')?.toLowerCase();
  const relationship = CENSUS_RELATIONSHIPS.find((candidate) => candidate === relationshipText);
  if (relationship === undefined && !problems.some((p) => p.column === 'relationship')) {
    problem('relationship', `Must be one of ${CENSUS_RELATIONSHIPS.join(', ')}.`);
  }
  const values: Record<string, unknown> = {};
  for (const [column, cell] of given) {
    if (column === 'employee_id' || column === 'relationship') continue;
    const reader = READERS[column];
    const reading = reader.read(cell);
    if ('error' in reading) problem(column, reading.error);
    else values[reader.field] = reading.value;
  }
  const addressParts = ['address_line1', 'city', 'state', 'zip_code'] as const;
  const addressGiven = addressParts.filter((column) => given.has(column));
  if (addressGiven.length > 0 || given.has('address_line2')) {
    const lacking = addressParts.filter((column) => !given.has(column));
    if (lacking.length > 0) problem(lacking[0]!, `An address needs address_line1, city, state and zip_code together; ${lacking.join(', ')} is blank.`);
    else if (!problems.some((p) => (addressParts as readonly string[]).includes(p.column ?? '') || p.column === 'address_line2')) {
      values.address = {
        line1: values.address_line1,
        line2: (values.address_line2 as string | undefined) ?? null,
        city: values.city,
        state: values.state,
        zip_code: values.zip_code,
      };
    }
  }
  for (const part of ['address_line1', 'address_line2', 'city', 'state', 'zip_code']) delete values[part];
  if (values.termination_reason !== undefined && values.termination_date === undefined) {
    problem('termination_reason', 'A termination_reason needs a termination_date on the same row.');
  }
  if (problems.length > 0 || employeeId === undefined || relationship === undefined) return { problems };
  return { row: { line, employeeId, relationship, values: values }, problems };
}
