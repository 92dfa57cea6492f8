import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

/**
 * Issue 31, "Reference": every property of the seed's records (docs/interface "Resources and their fields", plus
 * the member, employer and plan records) carries a description in the served OpenAPI document, nested objects
 * and the records they reference included.
 */
const RECORDS = [
  'Enrollment',
  'EnrolledPlan',
  'EnrolledDependent',
  'PrimaryCareProvider',
  'CoverageWaiver',
  'BenefitChange',
  'Dependent',
  'Address',
  'AddressResponse',
  'OpenEnrollmentWindow',
  'OpenEnrollmentWindowSummary',
  'BusinessUnit',
  'Subclass',
  'Group',
  'Carrier',
  'ContributionStrategy',
  'ContributionRule',
  'Beneficiary',
  'Notification',
  'Member',
  'Employer',
  'Plan',
  // The list envelope, as every list answers it.
  'EnrollmentList',
  'MemberList',
];

let t: TestContext;
let schemas: Record<string, any>;
beforeAll(async () => {
  t = await createTestApp();
  schemas = (await t.anonymous.get('/openapi.json')).body.components.schemas;
});
afterAll(async () => {
  await t.close();
});

const REF = '#/components/schemas/';

/** Paths of the properties under `schema` without a description, following $refs once each. */
function undescribed(schema: any, where: string, seen: Set<string>): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.slice(REF.length);
    if (seen.has(name)) return [];
    seen.add(name);
    return undescribed(schemas[name], name, seen);
  }
  const found: string[] = [];
  for (const [key, property] of Object.entries<any>(schema.properties ?? {})) {
    const path = `${where}.${key}`;
    if (typeof property.$ref !== 'string' && typeof property.description !== 'string') found.push(path);
    found.push(...undescribed(property, path, seen));
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) found.push(...undescribed(branch, where, seen));
  if (schema.items) found.push(...undescribed(schema.items, `${where}[]`, seen));
  if (typeof schema.additionalProperties === 'object') found.push(...undescribed(schema.additionalProperties, `${where}{}`, seen));
  return found;
}

describe('OpenAPI property descriptions', () => {
  it("when the document is served, then every property of the seed's records has a description", () => {
    const seen = new Set<string>();
    const missing = RECORDS.flatMap((name) => {
      expect(schemas[name], name).toBeDefined();
      if (seen.has(name)) return [];
      seen.add(name);
      return undescribed(schemas[name], name, seen);
    });
    expect(missing).toEqual([]);
  });

  it('when a record reuses a shared primitive, then its own description does not leak into the primitive', () => {
    expect(schemas.Group.properties.id.description).toBe('Record identifier');
    expect(schemas.Group.properties.carrier.description).toBe('The carrier (carrier identifier)');
    expect(schemas.Carrier.properties.id.description).toBe('Record identifier');
  });
});
