// ESLint over apps and libs, with the Nx module-boundary rule made to bite: the rule silently skips
// itself when no project graph is cached (a fresh clone), so compute the graph first, then prove the
// rule is live by linting known violations, which must fail (the DTO rule too).
import { execFileSync } from 'node:child_process';
import { ESLint } from 'eslint';

process.env.NX_DAEMON = 'false';
execFileSync('node_modules/.bin/nx', ['show', 'projects'], { stdio: 'ignore' });

const eslint = new ESLint();
const results = await eslint.lintFiles(['apps', 'libs']);
const formatter = await eslint.loadFormatter('stylish');
const output = await formatter.format(results);
if (output) process.stdout.write(output);
const errors = results.reduce((n, r) => n + r.errorCount, 0);

const probes = [
  { file: 'apps/identity/src/boundary-probe.ts', code: "import { start } from '../../gateway/src/main.js';\nexport const x = start;\n", why: 'a deployable importing another deployable', rule: '@nx/enforce-module-boundaries' },
  { file: 'libs/contracts/src/boundary-probe.ts', code: "import { start } from '../../../apps/identity/src/main.js';\nexport const x = start;\n", why: 'a library importing a deployable', rule: '@nx/enforce-module-boundaries' },
  { file: 'apps/catalog/src/boundary-probe.ts', code: "import { createTestDatabase } from '@lms/testing';\nexport const x = createTestDatabase;\n", why: 'production code importing the testing lib', rule: 'no-restricted-imports' },
  { file: 'libs/platform/src/eager-probe.ts', code: "import { FindOperator } from 'typeorm';\nexport const x = FindOperator;\n", why: 'a shared library loading TypeORM with the module', rule: '@typescript-eslint/no-restricted-imports' },
  {
    file: 'libs/contracts/src/dto-probe.ts',
    code: "import { IsInt } from 'class-validator';\nexport class Probe {\n  @IsInt()\n  id: number;\n\n  forgotten: string;\n}\n",
    why: 'a validated class with an undecorated property',
    rule: 'no-restricted-syntax',
  },
  {
    file: 'libs/contracts/src/dto-probe.ts',
    code: "import { PageQuery } from './common/query.js';\nexport class Probe extends PageQuery {\n  forgotten?: string;\n}\n",
    why: 'a DTO subclass whose own property is undecorated',
    rule: 'no-restricted-syntax',
  },
];
let dead = 0;
for (const probe of probes) {
  const [result] = await eslint.lintText(probe.code, { filePath: probe.file });
  const caught = result.messages.some((m) => m.severity === 2 && m.ruleId === probe.rule);
  if (!caught) {
    dead++;
    process.stderr.write(`lint: the probed rules did not catch ${probe.why} (${probe.file})\n${JSON.stringify(result.messages, null, 2)}\n`);
  }
}

console.log(`lint: ${results.length} files, ${errors} errors; probes caught ${probes.length - dead}/${probes.length}`);
process.exit(errors > 0 || dead > 0 ? 1 : 0);
