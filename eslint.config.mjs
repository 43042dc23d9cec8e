import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const services = ['gateway', 'identity', 'catalog', 'scheduling', 'jobs', 'locking', 'all-in-one'];

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', '.nx/**', '.data/**', 'coverage/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Deployables never import one another (Nx forbids app imports outright); libs never import apps;
      // a service reaches shared libs only, and the testing lib only from specs (rule below).
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared', 'scope:testing'] },
            { sourceTag: 'scope:testing', onlyDependOnLibsWithTags: ['scope:shared', 'scope:testing'] },
            ...services.map((s) => ({ sourceTag: `scope:${s}`, onlyDependOnLibsWithTags: ['scope:shared', 'scope:testing'] })),
          ],
        },
      ],
    },
  },
  {
    files: ['apps/**/src/**/*.ts', 'libs/contracts/src/**/*.ts', 'libs/platform/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: '@lms/testing', message: 'the testing lib is for specs only' }] }] },
  },
  {
    // Every deployable imports the shared libraries whole, so a value import here loads the package into the
    // gateway too, which has no database: TypeORM alone is 300 modules and 6 MiB (docs/performance.md).
    files: ['libs/contracts/src/**/*.ts', 'libs/platform/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['typeorm', 'pg', 'pino-pretty'].map((name) => ({
            name,
            allowTypeImports: true,
            message: 'load it where it is used (openDatabase, createRequire), not with the module: every deployable imports this library',
          })),
          patterns: [{ group: ['typeorm/*'], allowTypeImports: true, message: 'load TypeORM where it is used, not with the module' }],
        },
      ],
    },
  },
  {
    // validateInput keeps only decorated properties: an undecorated one of a DTO or event payload class is
    // refused in a request and silently dropped from an event's data (the tolerant reader).
    files: ['libs/contracts/src/**/*.ts', 'apps/catalog/src/markets/market-catalogue.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          // A class with a decorated property of its own, and a subclass (of a DTO: contracts extend no other classes).
          'ClassBody:has(PropertyDefinition[decorators.length>0]) > PropertyDefinition[decorators.length=0][static=false]',
          'ClassDeclaration[superClass] > ClassBody > PropertyDefinition[decorators.length=0][static=false]',
        ].map((selector) => ({
          selector,
          message: 'Every property of a validated class needs a validation decorator (@IsOptional() and a type check at least), or validateInput drops it.',
        })),
      ],
    },
  },
);
