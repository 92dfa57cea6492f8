import { describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/database.ts';
import { createEnrollment, enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// Clock: 2026-03-02. The lock order of docs/architecture.md: the member, then the enrollment, on every path.
const context = enrollmentWorldPerFile();

describe('two changes to one enrollment at once', () => {
  it.runIf(testDatabaseKind() === 'postgres')(
    'when a PATCH and a save_and_submit of one new enrollment arrive together, 50 times, then none is answered 500',
    async () => {
      const { w } = context;
      const answers: { status: number; type: string | undefined }[] = [];
      for (let round = 0; round < 50; round += 1) {
        const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
        // Two requests, so two connections of the pool, each in its own transaction.
        const [patched, submitted] = await Promise.all([
          w.admin.patch(`/enrollments/${enrollment.id}`, {
            enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.spouse.id }] }],
          }),
          w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`),
        ]);
        for (const response of [patched, submitted]) answers.push({ status: response.status, type: response.body?.type });
      }
      // Whichever ran second either saw the other's outcome (a pending enrollment is not edited) or collided with
      // it and was told to retry: a documented 409, never a 500.
      expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
      expect(answers.filter((answer) => answer.status !== 200 && !(answer.status === 409 && answer.type === 'invalid_state'))).toEqual([]);
    },
    120_000,
  );
});
