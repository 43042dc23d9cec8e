// Every offline packaging check in one command (the "deployment manifests" step of `npm test`):
// the Dockerfile lint, the Compose and Kubernetes validators, and each tool's --self-test, which
// proves its checks still reject bad inputs. No Docker engine or cluster is needed.
//
//   node tools/validate-deploy.mjs
//
// Exit code 0 when every check passes, 1 otherwise; the last line printed is a one-line summary.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = path.dirname(fileURLToPath(import.meta.url));

const CHECKS = [
  ['lint-dockerfile.mjs', path.relative(process.cwd(), path.join(TOOLS, '../docker/Dockerfile'))],
  ['lint-dockerfile.mjs', '--self-test'],
  ['validate-compose.mjs'],
  ['validate-compose.mjs', '--self-test'],
  ['validate-k8s.mjs'],
  ['validate-k8s.mjs', '--self-test'],
  ['nats-authorization.mjs', '--check'],
];

let failed = 0;
for (const [tool, ...args] of CHECKS) {
  const result = spawnSync(process.execPath, [path.join(TOOLS, tool), ...args], { encoding: 'utf8' });
  const summary = result.stdout.trim().split('\n').at(-1) || `${tool} ${args.join(' ')}: no output`;
  if (result.status === 0) {
    console.log(`  ok  ${summary}`);
  } else {
    failed += 1;
    // The details of a failure are on stderr: show them in full.
    if (result.stderr.trim()) console.error(result.stderr.trimEnd());
    console.log(`  FAIL ${summary}${result.error ? ` (${result.error.message})` : ''}`);
  }
}
console.log(`validate-deploy: ${failed === 0 ? 'passed' : 'FAILED'}: ${CHECKS.length - failed}/${CHECKS.length} checks passed (Dockerfile, Compose, Kubernetes, NATS authorization, self-tests)`);
process.exitCode = failed === 0 ? 0 : 1;
