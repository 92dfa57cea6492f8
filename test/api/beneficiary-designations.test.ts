import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { createMember } from '../helpers/factories.ts';
import { createBeneficiary } from '../helpers/people-factories.ts';
import { createEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';

// Life and AD&D elections name beneficiaries: primary and contingent shares that each add up to exactly
// 100.00, people of the member only; a life election without a primary beneficiary is allowed and flagged.

let t: TestContext;
let w: EnrollmentWorld;
let spouse: { id: string };
let sister: { id: string };
let charity: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  w = await createEnrollmentWorld(t);
  spouse = await createBeneficiary(w.admin, { member: w.member.id, full_name: 'Jo Doe', member_relationship: 'spouse' });
  sister = await createBeneficiary(w.admin, { member: w.member.id, full_name: 'Sam Doe', member_relationship: 'sibling' });
  charity = await createBeneficiary(w.admin, { member: w.member.id, full_name: 'Red Cross', member_relationship: 'charity' });
});

afterAll(async () => {
  await t.close();
});

type Designation = { beneficiary: string; designation: 'primary' | 'contingent'; percentage: string };
const lifeWith = (...designations: Designation[]) => ({ enrolled_plans: [{ plan: w.plans.life.id, beneficiary_designations: designations }] });
const primary = (beneficiary: { id: string }, percentage: string): Designation => ({ beneficiary: beneficiary.id, designation: 'primary', percentage });
const contingent = (beneficiary: { id: string }, percentage: string): Designation => ({ beneficiary: beneficiary.id, designation: 'contingent', percentage });

async function submit(id: string) {
  return w.admin.post(`/enrollments/${id}/save_and_submit`);
}

const fieldsAndMessages = (response: { body: { input_errors?: { field_path: (string | number)[]; message: string }[] } }) =>
  (response.body.input_errors ?? []).map((error) => `${error.field_path.join('.')}: ${error.message}`);

describe('beneficiary designations', () => {
  it('when primary shares add up to 100.00 and contingent ones too, then the election is accepted and shows them', async () => {
    const enrollment = await createEnrollment(w, lifeWith(primary(spouse, '60'), primary(sister, '40.00'), contingent(charity, '100')));
    expect(enrollment.enrolled_plans[0]).toMatchObject({
      beneficiary_designations: [
        { id: expect.stringMatching(/^bd_/), beneficiary: spouse.id, designation: 'primary', percentage: '60.00' },
        { id: expect.stringMatching(/^bd_/), beneficiary: sister.id, designation: 'primary', percentage: '40.00' },
        { id: expect.stringMatching(/^bd_/), beneficiary: charity.id, designation: 'contingent', percentage: '100.00' },
      ],
      primary_beneficiary_missing: false,
    });
    const submitted = await submit(enrollment.id);
    expect(submitted.status, submitted.text).toBe(200);
    expect((await w.admin.get(`/enrollments/${enrollment.id}`)).body.enrolled_plans[0].beneficiary_designations).toHaveLength(3);
  });

  it.each([
    // Built when the test runs: the beneficiaries exist only then.
    ['99.99', 'primary', () => [primary(spouse, '66.67'), primary(sister, '33.32')]],
    ['100.01', 'primary', () => [primary(spouse, '66.67'), primary(sister, '33.34')]],
    ['50.00', 'contingent', () => [primary(spouse, '100'), contingent(charity, '50')]],
  ] as const)(
    'when shares add up to %s, then submission is refused naming the %s shares; exactly 100.00 is the only sum accepted',
    async (total, kind, designations) => {
      const enrollment = await createEnrollment(w, lifeWith(...designations()));
      expect(fieldsAndMessages(await submit(enrollment.id))).toEqual([
        `enrolled_plans.0.beneficiary_designations: The ${kind} beneficiaries' shares add up to ${total}%; they must add up to exactly 100.00%.`,
      ]);
    },
  );

  it('when a life election names no primary beneficiary, then it is accepted and flagged (the estate takes); other lines are never flagged', async () => {
    const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.life.id }, { plan: w.plans.medical.id }] });
    expect(enrollment.enrolled_plans.map((plan: { primary_beneficiary_missing: boolean }) => plan.primary_beneficiary_missing)).toEqual([true, false]);
    expect((await submit(enrollment.id)).status).toBe(200);
    const contingentOnly = await createEnrollment(w, lifeWith(contingent(charity, '100')));
    expect(contingentOnly.enrolled_plans[0].primary_beneficiary_missing).toBe(true);
  });

  it("when a designation is on a medical plan, names another member's beneficiary, names someone twice or gives 0, then 400 at the field", async () => {
    const stranger = await createMember(w.admin, { employer: w.employer.id });
    const theirs = await createBeneficiary(w.admin, { member: stranger.id });
    const medical = await w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'open_enrollment',
      effective_start: '2026-04-01',
      enrolled_plans: [{ plan: w.plans.medical.id, beneficiary_designations: [primary(spouse, '100')] }],
    });
    expect(fieldsAndMessages(medical)).toEqual([
      'enrolled_plans.0.beneficiary_designations: Only life and accidental_death plans name beneficiaries; this plan is medical.',
    ]);

    const wrong = await w.admin.post('/enrollments', {
      member: w.member.id,
      category: 'open_enrollment',
      effective_start: '2026-04-01',
      ...lifeWith(primary(theirs, '50'), primary(spouse, '25'), primary(spouse, '25'), contingent(sister, '0')),
    });
    expect(fieldsAndMessages(wrong)).toEqual([
      'enrolled_plans.0.beneficiary_designations.0.beneficiary: No such beneficiary of the member.',
      'enrolled_plans.0.beneficiary_designations.2.beneficiary: The beneficiary is named twice as primary.',
      'enrolled_plans.0.beneficiary_designations.3.percentage: A share must be more than 0.',
    ]);
    const overHundred = await w.admin.post('/enrollments', { member: w.member.id, category: 'open_enrollment', ...lifeWith(primary(spouse, '100.01')) });
    expect(overHundred.status).toBe(400);
  });

  it('when an enrollment is edited without naming its designations, then they are kept; a designated beneficiary cannot be deleted until no election names them', async () => {
    const cousin = await createBeneficiary(w.admin, { member: w.member.id, full_name: 'Kit Doe', member_relationship: 'other_relative' });
    const enrollment = await createEnrollment(w, lifeWith(primary(cousin, '100')));
    const edited = await w.admin.patch(`/enrollments/${enrollment.id}`, { metadata: { note: 'x' }, effective_start: '2026-04-01' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.enrolled_plans[0].beneficiary_designations).toMatchObject([{ beneficiary: cousin.id, designation: 'primary', percentage: '100.00' }]);

    const refused = await w.admin.delete(`/beneficiaries/${cousin.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('invalid_state');
    await w.admin.patch(`/enrollments/${enrollment.id}`, lifeWith(primary(spouse, '100')));
    expect((await w.admin.delete(`/beneficiaries/${cousin.id}`)).status).toBe(200);
  });
});
