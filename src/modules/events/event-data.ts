import type { BeneficiaryRow } from '../beneficiaries/beneficiary.table.ts';
import type { BenefitChangeRow } from '../benefit-changes/benefit-change.table.ts';
import type { BusinessUnitRow } from '../business-units/business-unit.table.ts';
import type { CarrierFileResolutionRow, CarrierFileRow } from '../carrier-files/carrier-file.table.ts';
import type { CobraEventRow } from '../cobra-events/cobra-event.table.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { DocumentRow } from '../documents/document.table.ts';
import type { EdiFileRow, EdiLeftOutRow, EdiProfileRow } from '../edi/edi.table.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import type { GroupRow } from '../groups/group.table.ts';
import type { MemberIdCardRow } from '../member-id-cards/member-id-card.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { NotificationRow } from '../notifications/notification.table.ts';
import type { AlertRow } from '../alerts/alert.table.ts';
import type { OpenEnrollmentWindowRow } from '../open-enrollment/open-enrollment-window.table.ts';
import type { PayRateRow } from '../pay-rates/pay-rate.table.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import type { PlanRow } from '../plans/plan.table.ts';
import type { SubclassRow } from '../subclasses/subclass.table.ts';
import type { NewEvent } from './event-log.ts';
import type { EventAction } from './event-types.ts';
import type { EventObjectType } from './event.table.ts';

export type EventData = NonNullable<NewEvent['data']>;

/**
 * The columns each object type's event is made from. The rule: ids and statuses only (the record's parents
 * and its state), never names, dates of birth, SSNs, contact details, money or metadata values. Whoever needs
 * more reads the record itself, through the API and its permissions.
 */
interface EventSources {
  employer: object;
  carrier: object;
  group: Pick<GroupRow, 'employer_id' | 'carrier_id' | 'connection_method'>;
  business_unit: Pick<BusinessUnitRow, 'employer_id' | 'is_primary'>;
  subclass: Pick<SubclassRow, 'employer_id' | 'category' | 'is_default'>;
  member: Pick<MemberRow, 'employer_id'>;
  dependent: Pick<DependentRow, 'employer_id' | 'member_id'>;
  beneficiary: Pick<BeneficiaryRow, 'employer_id' | 'member_id'>;
  pay_rate: Pick<PayRateRow, 'employer_id' | 'member_id'>;
  document: Pick<DocumentRow, 'employer_id' | 'member_id'>;
  member_id_card: Pick<MemberIdCardRow, 'employer_id' | 'member_id' | 'carrier_id' | 'document_id'>;
  plan: Pick<PlanRow, 'employer_id' | 'group_id' | 'line_of_coverage' | 'previous_plan_id' | 'next_plan_id'>;
  plan_configuration: Pick<PlanConfigurationRow, 'employer_id' | 'plan_id' | 'required_subclass_id'>;
  enrollment: Pick<EnrollmentRow, 'employer_id' | 'member_id' | 'status' | 'category' | 'open_enrollment_window_id' | 'rules_override_reason'>;
  benefit_change: Pick<BenefitChangeRow, 'employer_id' | 'enrollment_id' | 'member_id' | 'line_of_coverage' | 'status' | 'delivery_state'>;
  open_enrollment_window: Pick<OpenEnrollmentWindowRow, 'employer_id' | 'status' | 'enrollment_type'>;
  notification: Pick<NotificationRow, 'employer_id' | 'notification_type' | 'related_object_type' | 'related_object_id' | 'owner'>;
  webhook_endpoint: { disabled: boolean | number; disabled_reason: string | null };
  cobra_event: Pick<CobraEventRow, 'employer_id' | 'member_id' | 'enrollment_id' | 'event_type'>;
  edi_profile: Pick<EdiProfileRow, 'employer_id' | 'group_id' | 'delivery_method'>;
  edi_file: Pick<EdiFileRow, 'employer_id' | 'group_id' | 'kind' | 'status'>;
  edi_left_out: Pick<EdiLeftOutRow, 'employer_id' | 'group_id' | 'member_id' | 'reason' | 'edi_file_id'>;
  alert: Pick<AlertRow, 'employer_id' | 'audience' | 'kind' | 'related_object_type' | 'related_object_id' | 'member_id'>;
  carrier_file: Pick<CarrierFileRow, 'employer_id' | 'group_id'> & {
    /** A discrepancy resolved (discrepancy_resolved): its index, the action and its member. */
    resolution?: Pick<CarrierFileResolutionRow, 'discrepancy_index' | 'action'> & { member_id: string | null };
  };
}

/** A record an event can be made from: its id, provider and the columns of its type. */
export type EventSource<T extends EventObjectType> = EventSources[T] & { id: string; provider_id: string };

/** The employer an event belongs to (what employer-scoped keys may see) and its data. */
interface Described {
  employer: string | null;
  data: EventData;
}

/** The one table of what each object type's events carry (`data`): the whitelist, written out per type. */
export const EVENT_DATA: { [T in EventObjectType]: (row: EventSource<T>) => Described } = {
  employer: (row) => ({ employer: row.id, data: {} }),
  carrier: () => ({ employer: null, data: {} }),
  group: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id, carrier: row.carrier_id, connection_method: row.connection_method } }),
  business_unit: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id, is_primary: Boolean(row.is_primary) } }),
  subclass: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id, category: row.category, is_default: Boolean(row.is_default) } }),
  member: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id } }),
  dependent: (row) => ({ employer: row.employer_id, data: { member: row.member_id, employer: row.employer_id } }),
  beneficiary: (row) => ({ employer: row.employer_id, data: { member: row.member_id, employer: row.employer_id } }),
  pay_rate: (row) => ({ employer: row.employer_id, data: { member: row.member_id, employer: row.employer_id } }),
  document: (row) => ({ employer: row.employer_id, data: { member: row.member_id, employer: row.employer_id } }),
  member_id_card: (row) => ({
    employer: row.employer_id,
    data: { member: row.member_id, employer: row.employer_id, carrier: row.carrier_id, document: row.document_id },
  }),
  plan: (row) => ({
    employer: row.employer_id,
    data: {
      employer: row.employer_id,
      group: row.group_id,
      line_of_coverage: row.line_of_coverage,
      previous_plan: row.previous_plan_id,
      next_plan: row.next_plan_id,
    },
  }),
  plan_configuration: (row) => ({
    employer: row.employer_id,
    data: { employer: row.employer_id, plan: row.plan_id, required_subclass: row.required_subclass_id },
  }),
  enrollment: (row) => ({
    employer: row.employer_id,
    data: {
      member: row.member_id,
      employer: row.employer_id,
      status: row.status,
      category: row.category,
      open_enrollment_window: row.open_enrollment_window_id,
      // That an admin overrode the life event rules is part of the audit trail; the reason (free text, which
      // may name people) stays on the enrollment, as every event's data holds ids and states only.
      rules_overridden: row.rules_override_reason !== null,
    },
  }),
  benefit_change: (row) => ({
    employer: row.employer_id,
    data: {
      enrollment: row.enrollment_id,
      member: row.member_id,
      employer: row.employer_id,
      line_of_coverage: row.line_of_coverage,
      status: row.status,
      delivery_state: row.delivery_state,
    },
  }),
  open_enrollment_window: (row) => ({
    employer: row.employer_id,
    data: { employer: row.employer_id, status: row.status, enrollment_type: row.enrollment_type },
  }),
  notification: (row) => ({
    employer: row.employer_id,
    data: {
      notification_type: row.notification_type,
      related_object_type: row.related_object_type,
      related_object_id: row.related_object_id,
      owner: row.owner,
    },
  }),
  webhook_endpoint: (row) => ({ employer: null, data: { disabled: Boolean(row.disabled), disabled_reason: row.disabled_reason } }),
  // Not the dependents, dates or lines: whoever acts on it reads the record (GET /cobra_events/{id}).
  cobra_event: (row) => ({
    employer: row.employer_id,
    data: { member: row.member_id, employer: row.employer_id, enrollment: row.enrollment_id, event_type: row.event_type },
  }),
  // Never the settings' secrets, nor a file's content: ids, kind and state only.
  edi_profile: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id, group: row.group_id, delivery_method: row.delivery_method } }),
  edi_file: (row) => ({ employer: row.employer_id, data: { employer: row.employer_id, group: row.group_id, kind: row.kind, status: row.status } }),
  // The reason is the writer's (the element and the rule, e.g. "NM109: is not an SSN the SSA issues"), which
  // never repeats the value (edi/x12-834.ts X12ValueError).
  edi_left_out: (row) => ({
    employer: row.employer_id,
    data: { employer: row.employer_id, group: row.group_id, member: row.member_id, reason: row.reason, edi_file: row.edi_file_id },
  }),
  // Not the message: whoever acts reads the alert (GET /alerts).
  alert: (row) => ({
    employer: row.employer_id,
    data: {
      employer: row.employer_id,
      audience: row.audience,
      kind: row.kind,
      related_object_type: row.related_object_type,
      related_object_id: row.related_object_id,
      member: row.member_id,
    },
  }),
  // A resolution's discrepancy by its index, the action and the member, never the carrier's values or the note (GET /carrier_files/{id}).
  carrier_file: (row) => ({
    employer: row.employer_id,
    data: {
      employer: row.employer_id,
      group: row.group_id,
      ...(row.resolution ? { discrepancy: row.resolution.discrepancy_index, action: row.resolution.action, member: row.resolution.member_id } : {}),
    },
  }),
};

/** The event of `action` on a record, e.g. `eventOf('member', 'created', row)`, with its data from EVENT_DATA. */
export function eventOf<T extends EventObjectType>(objectType: T, action: EventAction<T>, row: EventSource<T>): NewEvent {
  const { employer, data } = EVENT_DATA[objectType](row);
  return { providerId: row.provider_id, employerId: employer, objectType, action, objectId: row.id, data };
}
