import { randomBytes } from 'node:crypto';
import { compareCodeUnits } from './text.ts';

/** Id prefixes: one per kind of record (docs/decisions.md "Records and fields"). */
export const ID_PREFIXES = {
  employer: 'er',
  member: 'mem',
  employment_event: 'empev',
  dependent: 'dep',
  beneficiary: 'ben',
  carrier: 'carr',
  group: 'grp',
  business_unit: 'bu',
  subclass: 'sub',
  plan: 'plan',
  plan_configuration: 'pc',
  enrollment: 'enr',
  enrolled_plan: 'ep',
  enrolled_dependent: 'ed',
  beneficiary_designation: 'bd',
  primary_care_provider: 'pcp',
  coverage_waiver: 'cw',
  benefit_change: 'bc',
  open_enrollment_window: 'oew',
  member_id_card: 'mic',
  pay_rate: 'pr',
  pay_schedule: 'psch',
  payroll_run: 'prun',
  payroll_run_line: 'prl',
  document: 'doc',
  notification: 'ntf',
  event: 'evt',
  webhook_endpoint: 'whe',
  webhook_delivery: 'whd',
  cobra_event: 'cobra',
  coverage_termination: 'term',
  edi_file: 'edi',
  edi_acknowledgement: 'eack',
  edi_left_out: 'elo',
  carrier_ledger: 'cl',
  carrier_file: 'cf',
  carrier_file_resolution: 'cfr',
  census_import: 'cimp',
  census_import_row: 'cirow',
  premium_bill: 'pbill',
  alert: 'alr',
  api_key: 'key',
  provider: 'prov',
  request: 'req',
  job: 'job',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** The contract's identifier pattern (docs/decisions.md "Records and fields"). */
export const ID_PATTERN = '^[-a-zA-Z0-9_]+$';
const idRegExp = new RegExp(ID_PATTERN);

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling, so no modulo bias), fresh from the system generator: for secrets. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

// Ids are not secrets: their random bytes are drawn from the system generator in blocks and handed out a few
// at a time, since one randomBytes call per id cost more than the rest of making it.
const ID_POOL_SIZE = 4096;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

function randomIdBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (idPoolOffset === idPool.length) {
      idPool = randomBytes(ID_POOL_SIZE);
      idPoolOffset = 0;
    }
    const byte = idPool[idPoolOffset++]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

// Record ids are time-ordered: a per-process counter that starts at the current millisecond times 36^2 and only
// ever grows, written as 11 base36 characters (digits and lowercase sort alike in every collation), then 9 random
// base62 characters (53 bits). Among records of one instant, the ids of one process sort in the order they were
// made. New rows therefore go to the end of each table's primary key index, not to a random page of it: the
// daily sweep at 50,000 members wrote a third of the pages per commit and ran about a fifth faster than with
// 20 random characters. Ids are not secrets (every read is scoped to its tenant; keys and webhook secrets come
// from randomBase62), and created_at already tells when a record was made.
const ORDER_STEPS_PER_MS = 36 ** 2;
let lastOrder = 0;

/** A new record id: prefix, underscore, 20 characters; it sorts after every id this process made before. */
export function newId(kind: IdKind): string {
  lastOrder = Math.max(Date.now() * ORDER_STEPS_PER_MS, lastOrder + 1);
  return `${ID_PREFIXES[kind]}_${orderText(lastOrder)}${randomIdBase62(9)}`;
}

// The counter's 11 base36 characters: the first 8 change about every 36 ms and are kept; the last 3 are written
// from a small integer. (order.toString(36) of the whole counter, a number past 2^31, cost half a microsecond.)
const LOW_STEPS = 36 ** 3;
let highOrder = -1;
let highText = '';

/** `order` (a whole number below 36^11) as 11 base36 characters, zero-padded: order.toString(36).padStart(11, '0'). */
export function orderText(order: number): string {
  const high = Math.floor(order / LOW_STEPS);
  if (high !== highOrder) {
    highOrder = high;
    highText = high.toString(36).padStart(8, '0');
  }
  return highText + (order - high * LOW_STEPS).toString(36).padStart(3, '0');
}

/**
 * Orders ids by their code units, as SQLite's BINARY collation and PostgreSQL's "C" collation do: the order in
 * which paths that lock several members take them (docs/architecture.md, Lock order). Not localeCompare, which
 * goes through ICU: sorting a sweep batch's 1,250 members that way took about 60 ms.
 */
export const compareIds: (a: string, b: string) => number = compareCodeUnits;

export function isWellFormedId(value: string): boolean {
  return value.length > 0 && value.length <= 64 && idRegExp.test(value);
}
