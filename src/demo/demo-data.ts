/** The records `benefits demo` makes (demo.ts): a small dental practice group and its staff. Invented people. */
import { addDays } from '../shared/dates.ts';

const address = (line1: string, zip_code = '53703') => ({ line1, city: 'Madison', state: 'WI', zip_code });

export const DEMO_EMPLOYER = {
  legal_name: 'Lakeside Dental Group LLC',
  address: address('222 W Washington Ave, Suite 400'),
  metadata: { source: 'benefits demo' },
};

/** Medical, dental and vision plans for the plan year that starts on the next 1 January. */
export function demoPlans(today: string): Record<string, unknown>[] {
  const year = Number(today.slice(0, 4)) + 1;
  const planYear = { effective_start: `${year}-01-01`, effective_end: `${year}-12-31` };
  return [
    { plan_name: 'Prairie Mutual Gold PPO 1500', line_of_coverage: 'medical', ...planYear },
    { plan_name: 'Prairie Mutual Dental Plus', line_of_coverage: 'dental', ...planYear },
    { plan_name: 'Prairie Mutual Vision Basic', line_of_coverage: 'vision', ...planYear },
  ];
}

/** An open enrollment window from today for three weeks, for the plans above (`plans`: their ids). */
export function demoWindow(today: string, plans: readonly string[]): Record<string, unknown> {
  const renewal = `${Number(today.slice(0, 4)) + 1}-01-01`;
  return { start_date: today, end_date: addDays(today, 21), renewal_date: renewal, plans, metadata: { source: 'benefits demo' } };
}

export const DEMO_PEOPLE = [
  {
    first_name: 'Maria',
    last_name: 'Okafor',
    dob: '1984-03-19',
    ssn: '512481937',
    email: 'maria.okafor@example.com',
    address: address('1408 Jenifer St'),
    hire_date: '2019-06-03',
    employment_status: 'full_time',
    pay_frequency: 'biweekly',
    job_title: 'Practice Manager',
    dependents: [
      { first_name: 'Daniel', last_name: 'Okafor', member_relationship: 'spouse', dob: '1982-11-02' },
      { first_name: 'Ada', last_name: 'Okafor', member_relationship: 'child', dob: '2013-07-21' },
      { first_name: 'Tobi', last_name: 'Okafor', member_relationship: 'child', dob: '2017-01-09' },
    ],
  },
  {
    first_name: 'James',
    last_name: 'Lindqvist',
    dob: '1991-08-30',
    ssn: '387205614',
    email: 'james.lindqvist@example.com',
    address: address('733 E Johnson St'),
    hire_date: '2022-09-12',
    employment_status: 'full_time',
    pay_frequency: 'biweekly',
    job_title: 'Dentist',
    dependents: [{ first_name: 'Priya', last_name: 'Lindqvist', member_relationship: 'spouse', dob: '1992-04-14' }],
  },
  {
    first_name: 'Rosa',
    last_name: 'Delgado',
    dob: '1978-12-05',
    ssn: '298517340',
    email: 'rosa.delgado@example.com',
    address: address('2110 Monroe St', '53711'),
    hire_date: '2015-02-16',
    employment_status: 'full_time',
    pay_frequency: 'biweekly',
    job_title: 'Dental Hygienist',
    dependents: [{ first_name: 'Luis', last_name: 'Delgado', member_relationship: 'child', dob: '2008-05-27' }],
  },
  {
    first_name: 'Kevin',
    last_name: 'Tran',
    dob: '1998-02-11',
    email: 'kevin.tran@example.com',
    address: address('15 N Hancock St'),
    hire_date: '2024-04-01',
    employment_status: 'full_time',
    pay_frequency: 'biweekly',
    job_title: 'Dental Assistant',
    dependents: [],
  },
  {
    first_name: 'Hannah',
    last_name: 'Becker',
    dob: '1987-10-23',
    email: 'hannah.becker@example.com',
    address: address('402 S Park St', '53715'),
    hire_date: '2021-01-04',
    employment_status: 'part_time',
    pay_frequency: 'biweekly',
    job_title: 'Front Desk Coordinator',
    dependents: [
      { first_name: 'Noah', last_name: 'Becker', member_relationship: 'child', dob: '2016-03-08' },
      { first_name: 'Emma', last_name: 'Becker', member_relationship: 'child', dob: '2019-09-15' },
    ],
  },
] as const;
