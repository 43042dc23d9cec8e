// Compiles every library and deployable with SWC (decorator metadata included): libs to libs/<name>/dist,
// deployables to dist/apps/<name>. Type checking is `npm run typecheck`, kept apart because it is slower.
// One process transforms every file through @swc/core: `npm start` builds first, and spawning a CLI per
// project cost seconds of the start-up budget (issue 21).
import { readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { transformFile } from '@swc/core';

const options = JSON.parse(readFileSync('.swcrc', 'utf8'));
delete options.$schema;
const skipped = /\.(spec|integration-spec|e2e-spec)\.ts$|\.d\.ts$/;

// `node tools/build.mjs apps/gateway libs/platform` builds just those (the Nx build targets); no argument, all.
const wanted = process.argv.slice(2).map((folder) => folder.replace(/\/$/, ''));
const projects = [
  ...readdirSync('libs').map((name) => ({ folder: `libs/${name}`, out: `libs/${name}/dist` })),
  ...readdirSync('apps').map((name) => ({ folder: `apps/${name}`, out: `dist/apps/${name}` })),
]
  .filter(({ folder }) => wanted.length === 0 || wanted.includes(folder))
  .map(({ folder, out }) => ({ src: `${folder}/src`, out }));
if (projects.length < wanted.length) throw new Error(`unknown project among ${wanted.join(', ')}`);

function sources(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !skipped.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

async function compile(file, { src, out }) {
  const target = resolve(out, relative(src, file)).replace(/\.ts$/, '.js');
  const mapName = `${target.slice(target.lastIndexOf('/') + 1)}.map`;
  const { code, map } = await transformFile(file, { ...options, filename: file, sourceFileName: relative(dirname(target), resolve(file)), swcrc: false });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${code}\n//# sourceMappingURL=${mapName}`);
  if (map) writeFileSync(`${target}.map`, map);
}

const started = Date.now();
for (const { out } of projects) rmSync(out, { recursive: true, force: true });
await Promise.all(projects.flatMap((project) => sources(project.src).map((file) => compile(file, project))));
// `npm run build --silent` (as `npm run cli` uses it) keeps stdout for the command that follows.
if (process.env.npm_config_loglevel !== 'silent') console.log(`built ${projects.length} projects in ${Date.now() - started} ms`);
