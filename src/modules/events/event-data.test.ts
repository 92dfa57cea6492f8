import { describe, expect, it } from 'vitest';
import { ENROLLMENT_EVENT_ACTIONS, ENROLLMENT_TRANSITIONS } from '../enrollments/enrollment-status.ts';
import { WINDOW_EVENT_ACTIONS, WINDOW_TRANSITIONS } from '../open-enrollment/window-status.ts';
import { EVENT_DATA, eventOf, type EventSource } from './event-data.ts';
import { EVENT_ACTIONS, EVENT_TYPES } from './event-types.ts';
import { EVENT_OBJECT_TYPES, type EventObjectType } from './event.table.ts';

// Every column of every record, with personal data where a record has any: the mappers must pass none of it on.
const PERSONAL = {
  first_name: 'Quintessa',
  middle_name: 'Marigold',
  last_name: 'Zyxwvut',
  full_name: 'Quintessa Zyxwvut',
  legal_name: 'Zyxwvut Holdings',
  trade_name: 'Zyx',
  dob: '1979-11-23',
  ssn_encrypted: 'v1:ciphertext',
  ssn_last_four: '4321',
  tin_last_four: '8765',
  email: 'quintessa@example.com',
  phone_number: '5558675309',
  address: '{"line1":"742 Evergreen Terrace"}',
  federal_ein: '12-3456789',
  hire_date: '2020-02-02',
  termination_date: '2026-12-31',
  job_title: 'Undercover Auditor',
  hours_worked: 37.5,
  amount_cents: 12345678,
  premium_cents: 51240,
  metadata: '{"badge":"secret-badge-value"}',
  payload: '{"secret":"x"}',
  name: 'birth-certificate-quintessa.pdf',
  content: new Uint8Array([1, 2, 3]),
  memo: 'Called Quintessa at home',
  assignee: 'agent@example.com',
  member_relationship: 'spouse',
  has_disability: 1,
  biological_sex: 'female',
  url: 'https://hooks.example.com/secret-path',
  secret_ciphertext: 'v1:secret',
  rules_override_reason: 'Quintessa brought the form late',
};
const IDS_AND_STATES = {
  id: 'obj_1',
  provider_id: 'prov_1',
  employer_id: 'er_1',
  member_id: 'mem_1',
  carrier_id: 'carr_1',
  group_id: 'grp_1',
  plan_id: 'plan_1',
  previous_plan_id: 'plan_0',
  next_plan_id: 'plan_2',
  document_id: 'doc_1',
  enrollment_id: 'enr_1',
  required_subclass_id: 'sub_1',
  open_enrollment_window_id: 'oew_1',
  related_object_id: 'mem_1',
  connection_method: 'manual',
  is_primary: 1,
  is_default: 0,
  category: 'qle',
  status: 'approved',
  delivery_state: 'manual',
  line_of_coverage: 'medical',
  enrollment_type: 'active',
  notification_type: 'welcome',
  related_object_type: 'member',
  owner: 'member',
  disabled: 0,
  disabled_reason: 'failing',
  event_type: 'termination',
  delivery_method: 'sftp',
  kind: 'change',
  audience: 'admin',
  edi_file_id: 'edi_1',
  // The 834 writer's reason for leaving a member out: an element and a rule, never the value.
  reason: 'NM109: is not an SSN the SSA issues',
};
const everything = { ...PERSONAL, ...IDS_AND_STATES } as unknown as EventSource<EventObjectType>;

describe('EVENT_DATA', () => {
  it.each(EVENT_OBJECT_TYPES)('when a %s event is made from a row full of personal data, then its data holds none of it', (objectType) => {
    const { data } = EVENT_DATA[objectType](everything as never);
    const text = JSON.stringify(data);
    for (const value of Object.values(PERSONAL)) {
      if (typeof value === 'string') expect(text).not.toContain(value);
    }
    expect(text).not.toContain('Quintessa');
    expect(text).not.toContain('1979');
    for (const [key, value] of Object.entries(data)) {
      // Ids, statuses and flags only: each value is an id or code of the row, a boolean, or null.
      expect(typeof value === 'boolean' || value === null || Object.values(IDS_AND_STATES).includes(value as string), `${objectType}.${key}`).toBe(true);
    }
  });

  it.each([
    ['employer', {}, 'er_x'],
    ['carrier', {}, null],
    ['member', { employer: 'er_1' }, 'er_1'],
    ['dependent', { member: 'mem_1', employer: 'er_1' }, 'er_1'],
    ['plan', { employer: 'er_1', group: 'grp_1', line_of_coverage: 'medical', previous_plan: 'plan_0', next_plan: 'plan_2' }, 'er_1'],
    ['enrollment', { member: 'mem_1', employer: 'er_1', status: 'approved', category: 'qle', open_enrollment_window: 'oew_1', rules_overridden: true }, 'er_1'],
    [
      'benefit_change',
      { enrollment: 'enr_1', member: 'mem_1', employer: 'er_1', line_of_coverage: 'medical', status: 'approved', delivery_state: 'manual' },
      'er_1',
    ],
    ['notification', { notification_type: 'welcome', related_object_type: 'member', related_object_id: 'mem_1', owner: 'member' }, 'er_1'],
    ['open_enrollment_window', { employer: 'er_1', status: 'approved', enrollment_type: 'active' }, 'er_1'],
    ['cobra_event', { member: 'mem_1', employer: 'er_1', enrollment: 'enr_1', event_type: 'termination' }, 'er_1'],
    ['edi_left_out', { employer: 'er_1', group: 'grp_1', member: 'mem_1', reason: 'NM109: is not an SSN the SSA issues', edi_file: 'edi_1' }, 'er_1'],
    ['alert', { employer: 'er_1', audience: 'admin', kind: 'change', related_object_type: 'member', related_object_id: 'mem_1', member: 'mem_1' }, 'er_1'],
    ['carrier_file', { employer: 'er_1', group: 'grp_1' }, 'er_1'],
  ] as const)("when a %s event is made, then its data is exactly the whitelist and its employer the record's", (objectType, data, employer) => {
    const row = objectType === 'employer' ? { ...everything, id: 'er_x' } : everything;
    expect(eventOf(objectType, 'created', row as never)).toEqual({
      providerId: 'prov_1',
      employerId: employer,
      objectType,
      action: 'created',
      objectId: objectType === 'employer' ? 'er_x' : 'obj_1',
      data,
    });
  });
});

describe('carrier_file.discrepancy_resolved', () => {
  it("when a discrepancy is resolved, then its event names the discrepancy's index, the action and the member, nothing the carrier said", () => {
    const row = { ...everything, resolution: { discrepancy_index: 3, action: 'accept_carrier_value' as const, member_id: 'mem_1' } };
    expect(eventOf('carrier_file', 'discrepancy_resolved', row as never).data).toEqual({
      employer: 'er_1',
      group: 'grp_1',
      discrepancy: 3,
      action: 'accept_carrier_value',
      member: 'mem_1',
    });
  });
});

describe('EVENT_ACTIONS', () => {
  it('when the catalog is listed, then every object type can be created and every type is <object_type>.<action>, once', () => {
    for (const objectType of EVENT_OBJECT_TYPES) expect(EVENT_ACTIONS[objectType]).toContain('created');
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });

  it('when the status machines gain a transition, then it needs an event action in the catalog', () => {
    expect(Object.keys(ENROLLMENT_EVENT_ACTIONS).sort()).toEqual(Object.keys(ENROLLMENT_TRANSITIONS).sort());
    for (const action of Object.values(ENROLLMENT_EVENT_ACTIONS)) expect(EVENT_TYPES).toContain(`enrollment.${action}`);
    expect(Object.keys(WINDOW_EVENT_ACTIONS).sort()).toEqual(Object.keys(WINDOW_TRANSITIONS).sort());
    for (const action of Object.values(WINDOW_EVENT_ACTIONS)) if (action !== null) expect(EVENT_TYPES).toContain(`open_enrollment_window.${action}`);
  });
});
