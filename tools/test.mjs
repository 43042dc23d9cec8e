// `npm test`: every check a change must pass, in order of cost: lint (with module boundaries), type check,
// deployment manifests, build, then the jest tiers (unit, integration, end-to-end) against real infrastructure,
// then the fault suite.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const node = process.execPath;
const jestArgs = process.argv.slice(2);
const steps = [
  ['lint', [node, 'tools/lint.mjs']],
  ['type check', ['node_modules/.bin/tsc', '-p', 'tsconfig.json']],
  ['deployment manifests', [node, 'tools/validate-deploy.mjs']],
  ['build', [node, 'tools/build.mjs']],
];

for (const [name, [cmd, ...args]] of steps) {
  if (jestArgs.length > 0 && name !== 'build') continue; // `npm test -- <pattern>` runs just the matching specs
  process.stdout.write(`\n== ${name}\n`);
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${name} failed`);
    process.exit(1);
  }
}

process.stdout.write('\n== tests\n');
const report = '.jest-results.json';
rmSync(report, { force: true });
const jest = spawnSync(node, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--json', `--outputFile=${report}`, ...jestArgs], {
  stdio: 'inherit',
});
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  // The plain closing line CI reads, whatever the runner.
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
  rmSync(report, { force: true });
}
if (jestArgs.length > 0) process.exit(jest.status ?? 1);

// Last, the fault suite (faults/run.mjs): the deployables as separate processes, killed and restarted
// under load. It prints its table; `npm run test:faults` also writes it to docs/reliability.md.
process.stdout.write('\n== faults\n');
const faults = spawnSync(node, ['faults/run.mjs'], { stdio: 'inherit', env: { ...process.env, FAULTS_REPORT: '-', FAULTS_OPTIONAL: '1' } });
process.exit(jest.status !== 0 ? (jest.status ?? 1) : (faults.status ?? 1));
