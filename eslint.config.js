import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Enrollment status has one owner: src/modules/enrollments (enrollment-lifecycle.ts).
const ONLY_ENROLLMENTS_WRITE_ENROLLMENTS = {
  selector: "CallExpression[callee.property.name='updateTable'][arguments.0.value='enrollments']",
  message: 'Only the enrollments module writes enrollments: use its functions (e.g. settleEnrollment in enrollment-lifecycle.ts).',
};

// Delivery state has one owner: src/modules/benefit-changes (benefit-change.repository.ts, on the table in
// benefit-change-delivery.ts).
const ONLY_BENEFIT_CHANGES_WRITE_BENEFIT_CHANGES = {
  selector: "CallExpression[callee.property.name='updateTable'][arguments.0.value='benefit_changes']",
  message:
    'Only the benefit-changes module writes benefit_changes: use its transitions (transitionDelivery, transitionChangesOfEdiFile in benefit-change.repository.ts).',
};

// Coverage has one owner: src/modules/coverage holds every query over the coverage tables (coverage.repository.ts
// and the repositories beside it); the enrollments module writes and reads its own elections.
const COVERAGE_TABLES = '/^(enrolled_plans|enrolled_dependents|coverage_waivers|coverage_terminations|coverage_termination_items|beneficiary_designations)\\b/';
const COVERAGE_MESSAGE = 'Only the coverage module queries coverage tables: add or use a function in src/modules/coverage (e.g. coverage.repository.ts).';
const ONLY_COVERAGE_QUERIES_COVERAGE = [
  {
    selector: `CallExpression[callee.property.name=/^(selectFrom|updateTable|deleteFrom|insertInto|innerJoin|leftJoin)$/][arguments.0.value=${COVERAGE_TABLES}]`,
    message: COVERAGE_MESSAGE,
  },
  { selector: `CallExpression[callee.name='insertRows'][arguments.1.value=${COVERAGE_TABLES}]`, message: COVERAGE_MESSAGE },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', '.bench/', '.lint/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'bench/*.js', 'scripts/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Every CSV goes through the one writer that neutralizes formula cells (STYLE habit 13).
    files: ['src/**/*.ts'],
    ignores: ['src/shared/csv.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'csv-stringify', message: 'Write CSV with createCsvWriter (src/shared/csv.ts): it neutralizes formula cells.' }],
          patterns: [{ group: ['csv-stringify/*'], message: 'Write CSV with createCsvWriter (src/shared/csv.ts): it neutralizes formula cells.' }],
        },
      ],
    },
  },
  // One owner per table of a state machine: other modules go through the owner's functions. The rules share
  // no-restricted-syntax, so each scope lists every selector that applies to it (a later config replaces it).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/enrollments/**', 'src/modules/benefit-changes/**', 'src/modules/coverage/**', 'src/db/migrations/**'],
    rules: {
      'no-restricted-syntax': ['error', ONLY_ENROLLMENTS_WRITE_ENROLLMENTS, ONLY_BENEFIT_CHANGES_WRITE_BENEFIT_CHANGES, ...ONLY_COVERAGE_QUERIES_COVERAGE],
    },
  },
  { files: ['src/modules/enrollments/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ONLY_BENEFIT_CHANGES_WRITE_BENEFIT_CHANGES] } },
  {
    files: ['src/modules/benefit-changes/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ONLY_ENROLLMENTS_WRITE_ENROLLMENTS, ...ONLY_COVERAGE_QUERIES_COVERAGE] },
  },
  {
    files: ['src/modules/coverage/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ONLY_ENROLLMENTS_WRITE_ENROLLMENTS, ONLY_BENEFIT_CHANGES_WRITE_BENEFIT_CHANGES] },
  },
  {
    files: ['test/**/*.ts', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { ...globals.node } } },
);
