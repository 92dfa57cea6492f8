import { parseAddress } from '../../http/schemas.ts';
import { parseMetadata } from '../../shared/metadata.ts';
import type { NewNotification } from '../notifications/notification.service.ts';
import { parseDetails } from './employment-history.repository.ts';
import type { EmploymentEventResponse, MemberResponse } from './member.schemas.ts';
import type { MemberEmploymentEventRow, MemberRow } from './member.table.ts';

/** How a member and their history read in responses, and the notice of a termination (member.service.ts). */
export function toMemberResponse(row: MemberRow, links: { subclasses: string[]; enrollments: string[] }): MemberResponse {
  return {
    id: row.id,
    employer: row.employer_id,
    first_name: row.first_name,
    last_name: row.last_name,
    dob: row.dob,
    ssn_last_four: row.ssn_last_four,
    email: row.email,
    phone_number: row.phone_number,
    address: parseAddress(row.address),
    hire_date: row.hire_date,
    original_hire_date: row.original_hire_date ?? row.hire_date,
    termination_date: row.termination_date,
    termination_reason: row.termination_reason,
    date_of_death: row.date_of_death,
    rehire_rule: row.rehire_rule as MemberResponse['rehire_rule'],
    biological_sex: row.biological_sex,
    employment_status: row.employment_status,
    hours_worked: row.hours_worked,
    pay_frequency: row.pay_frequency,
    payroll_provider_external_id: row.payroll_provider_external_id,
    job_title: row.job_title,
    business_unit: row.business_unit_id,
    pay_schedule: row.pay_schedule_id,
    subclasses: links.subclasses,
    enrollments: links.enrollments,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

export function toEmploymentEventResponse(row: MemberEmploymentEventRow): EmploymentEventResponse {
  return {
    id: row.id,
    member: row.member_id,
    event_type: row.event_type,
    effective_date: row.effective_date,
    details: parseDetails(row),
    recorded_at: row.recorded_at,
  };
}

/** member_terminated to the employer, once per termination date. */
export function terminatedNotification(member: MemberRow): NewNotification {
  return {
    providerId: member.provider_id,
    employerId: member.employer_id,
    type: 'member_terminated',
    relatedObjectType: 'member',
    relatedObjectId: member.id,
    owner: 'employer',
    payload: { member: member.id, employer: member.employer_id },
    occurrenceKey: `member_terminated:${member.id}:${member.termination_date}`,
  };
}
