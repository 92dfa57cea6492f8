import { createTestDatabase } from './database.ts';
import { createTestAppOn, type TestAppOptions, type TestContext } from './test-app-core.ts';

// The vitest-free part is test-app-core.ts (the simulation and the bench import it under plain Node).
export * from './test-app-core.ts';

/** A real server on an ephemeral port over a fresh, migrated database of this project's kind. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  return createTestAppOn(await createTestDatabase(), options);
}
