// Compiles every library and deployable with SWC (decorator metadata included): libs to libs/<name>/dist,
// deployables to dist/apps/<name>. Type checking is `npm run typecheck`, kept apart because it is slower.
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const swc = 'node_modules/.bin/swc';
const ignore = '**/*.spec.ts,**/*.integration-spec.ts,**/*.e2e-spec.ts';
const projects = [
  ...readdirSync('libs').map((name) => ({ src: `libs/${name}/src`, out: `libs/${name}/dist` })),
  ...readdirSync('apps').map((name) => ({ src: `apps/${name}/src`, out: `dist/apps/${name}` })),
];

const run = ({ src, out }) =>
  new Promise((done, reject) => {
    rmSync(out, { recursive: true, force: true });
    // From the project folder, --strip-leading-paths drops `src/`: outputs land at the top of `out`.
    const child = spawn(resolve(swc), ['src', '-d', resolve(out), '--strip-leading-paths', '--config-file', resolve('.swcrc'), '--ignore', ignore, '--quiet'], { cwd: dirname(src), stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? done() : reject(new Error(`swc failed on ${src} (exit ${code})`))));
  });

const started = Date.now();
await Promise.all(projects.map(run));
// `npm run build --silent` (as `npm run cli` uses it) keeps stdout for the command that follows.
if (process.env.npm_config_loglevel !== 'silent') console.log(`built ${projects.length} projects in ${Date.now() - started} ms`);
