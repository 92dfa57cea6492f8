import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
  {
    // Enrollment status has one owner: other modules go through src/modules/enrollments (enrollment-lifecycle.ts).
    files: ['src/**/*.ts'],
    ignores: ['src/modules/enrollments/**', 'src/db/migrations/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='updateTable'][arguments.0.value='enrollments']",
          message: 'Only the enrollments module writes enrollments: use its functions (e.g. settleEnrollment in enrollment-lifecycle.ts).',
        },
      ],
    },
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
