// Lints the deployables' Dockerfile without a Docker engine (none in CI). dockerfile-utils (the
// maintained linter of the Dockerfile language server) checks the syntax: instructions, flags, JSON
// arrays. Then, on dockerfile-ast's parse, the rules an image reviewer would apply and no npm linter
// does: pinned bases, non-root, exec-form CMD, production-only node_modules traced through the stages,
// the APP build argument, and the node flags every deployable runs with (package.json's config.node_flags).
// A rule id per problem.
//
//   node tools/lint-dockerfile.mjs [Dockerfile...]   (default docker/Dockerfile)
//   node tools/lint-dockerfile.mjs --self-test       (proves each rule rejects a bad input)
//
// Exit code 0 when clean, 1 on any problem; the last line printed is a one-line summary.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import dockerfileAst from 'dockerfile-ast';
import { validate as dockerfileSyntax } from 'dockerfile-utils';
import { deployedNodeFlags, ROOT } from './deploy-facts.mjs';

const { DockerfileParser } = dockerfileAst;

const DEFAULT_FILE = path.relative(process.cwd(), path.join(ROOT, 'docker/Dockerfile'));

/** @typedef {{ rule: string, line: number, message: string }} Problem */
/** @typedef {{ index: number, name: string | null, from: import('dockerfile-ast').From, instructions: import('dockerfile-ast').Instruction[] }} Stage */

const lineOf = (instruction) => instruction.getRange().start.line + 1;

/** Expands $VAR, ${VAR} and ${VAR:-default} from `vars`; null when a variable has no value. */
function expand(text, vars) {
  let unresolved = false;
  const out = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced, fallback, bare) => {
    const value = vars.get(braced ?? bare);
    if (value !== undefined && value !== null && value !== '') return value;
    if (fallback !== undefined) return fallback;
    unresolved = true;
    return '';
  });
  return unresolved ? null : out;
}

const referencesVariable = (text, name) => new RegExp(`\\$\\{?${name}(?![A-Za-z0-9_])`).test(text);

/** Splits a shell script into simple commands (approximate: enough for install commands). */
function shellCommands(script) {
  return script
    .split(/&&|\|\||;|\||\n/)
    .map((command) => command.trim().split(/\s+/).filter(Boolean).map((word) => word.replace(/^["']|["']$/g, '')))
    .filter((words) => words.length > 0);
}

/** A dependency install in a RUN: null when the command installs nothing. */
function dependencyInstall(words) {
  const at = words.findIndex((word) => ['npm', 'pnpm', 'yarn'].includes(word));
  if (at < 0) return null;
  const [tool, verb] = [words[at], words[at + 1]];
  const rest = words.slice(at + 1);
  const has = (...flags) => rest.some((word) => flags.includes(word)) || rest.some((word, i) => word === '--omit' && rest[i + 1] === 'dev');
  if (tool === 'npm' && ['ci', 'install', 'i', 'prune'].includes(verb)) {
    return { command: `npm ${verb}`, production: has('--omit=dev', '--production', '--only=prod', '--only=production') };
  }
  if (tool === 'pnpm' && ['install', 'i', 'prune'].includes(verb)) return { command: `pnpm ${verb}`, production: has('--prod', '-P', '--production') };
  if (tool === 'yarn' && (verb === 'install' || verb === 'workspaces' || verb === undefined)) return { command: 'yarn install', production: has('--production') };
  return null;
}

/** Is this the root user (name or uid 0), with or without a group? */
const isRoot = (user) => ['root', '0'].includes(user.split(':')[0]);

/** A CMD/ENTRYPOINT's form: exec (a JSON array, parsed) or shell; dockerfile-utils reports malformed arrays. */
function execForm(instruction) {
  const content = (instruction.getArgumentsContent() ?? '').trim();
  try {
    const parsed = JSON.parse(content);
    if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return { form: 'exec', args: parsed, content };
  } catch {
    // not JSON: Docker runs it through /bin/sh -c
  }
  return { form: 'shell', content };
}

/** Splits an image reference into name, tag and digest. */
function imageReference(ref) {
  const [withoutDigest, digest] = ref.split('@');
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > lastSlash;
  return { name: hasTag ? withoutDigest.slice(0, colon) : withoutDigest, tag: hasTag ? withoutDigest.slice(colon + 1) : null, digest: digest ?? null };
}

/** The flags node runs with: those in NODE_OPTIONS, and the words between `node` and the script of an exec-form CMD. */
function nodeFlagsOf(nodeOptions, command) {
  const args = command?.form === 'exec' ? command.args : [];
  const afterNode = args.includes('node') ? args.slice(args.indexOf('node') + 1) : [];
  const script = afterNode.findIndex((arg) => !arg.startsWith('-'));
  return new Set([...(nodeOptions ?? '').split(/\s+/).filter(Boolean), ...(script < 0 ? afterNode : afterNode.slice(0, script))]);
}

/**
 * Lints Dockerfile text; returns problems (empty when clean) and facts for the summary. `nodeFlags`: the
 * flags node must run with in the image (those V8 accepts only on the command line cannot go in NODE_OPTIONS).
 */
export function lintDockerfile(text, { nodeFlags = [] } = {}) {
  /** @type {Problem[]} */
  const problems = [];
  const report = (rule, line, message) => problems.push({ rule, line, message });
  for (const diagnostic of dockerfileSyntax(text)) report('syntax', diagnostic.range.start.line + 1, diagnostic.message);
  const dockerfile = DockerfileParser.parse(text);

  const globalArgs = new Map();
  for (const arg of dockerfile.getInitialARGs()) {
    for (const property of arg.getProperties()) globalArgs.set(property.getName(), property.getValue());
  }

  /** @type {Stage[]} */
  const stages = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      stages.push({ index: stages.length, name: instruction.getBuildStage()?.toLowerCase() ?? null, from: instruction, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1).instructions.push(instruction);
    }
  }
  if (stages.length === 0) {
    report('from', 1, 'no FROM instruction');
    return { problems, stages: 0, finalStage: null };
  }

  const stageNamed = (name, before) => stages.find((stage) => stage.index < before && stage.name !== null && stage.name === name.toLowerCase());
  /** The stage a FROM or COPY --from refers to, or null for an external image. */
  const internalStage = (ref, before) => stageNamed(ref, before) ?? (/^\d+$/.test(ref) && Number(ref) < before ? stages[Number(ref)] : null);

  // Base images: tagged or digest-pinned, never `latest`.
  for (const stage of stages) {
    const raw = stage.from.getImage() ?? '';
    const ref = expand(raw, globalArgs);
    if (ref === null) {
      report('base-image-tag', lineOf(stage.from), `FROM ${raw}: cannot resolve the image (give the global ARG a default)`);
      continue;
    }
    if (ref === 'scratch' || internalStage(ref, stage.index)) continue;
    const { tag, digest } = imageReference(ref);
    if (tag === null && digest === null) report('base-image-tag', lineOf(stage.from), `FROM ${ref}: untagged base image means "latest"; pin a version tag or digest`);
    else if (tag === 'latest') report('base-image-tag', lineOf(stage.from), `FROM ${ref}: "latest" is not a version; pin a version tag or digest`);
  }

  for (const stage of stages) {
    for (const instruction of stage.instructions) {
      const keyword = instruction.getKeyword();
      if (keyword === 'ADD') {
        const sources = instruction.getArguments().map((argument) => argument.getValue()).slice(0, -1);
        for (const source of sources) {
          if (/^(https?|ftp|git):\/\/|^git@|\.git(#.*)?$/.test(source)) {
            report('add-url', lineOf(instruction), `ADD ${source}: remote sources are unverified; download in a RUN with a checksum check, or COPY local files`);
          }
        }
      }
      if (keyword === 'RUN') {
        for (const words of shellCommands(instruction.getArgumentsContent() ?? '')) {
          const tool = words.findIndex((word) => word === 'apt-get' || word === 'apt');
          if (tool >= 0 && words.slice(tool + 1).includes('install') && !words.includes('--no-install-recommends')) {
            report('apt-no-recommends', lineOf(instruction), `${words.slice(tool).join(' ')}: add --no-install-recommends (recommended packages bloat the image and widen its attack surface)`);
          }
        }
      }
    }
  }

  /** The stage and its internal ancestors, root first: what the image of `stage` is made of. */
  const chainOf = (stage) => {
    const chain = [stage];
    for (let current = stage; ; ) {
      const base = expand(current.from.getImage() ?? '', globalArgs);
      const parent = base === null ? null : internalStage(base, current.index);
      if (!parent) break;
      chain.unshift(parent);
      current = parent;
    }
    return chain;
  };

  /** Where node_modules of a stage's image come from; `production` false means dev deps ship. */
  const nodeModulesOf = (stage, depth = 0) => {
    let workdir = '/';
    let producer = null;
    for (const current of chainOf(stage)) {
      for (const instruction of current.instructions) {
        const keyword = instruction.getKeyword();
        if (keyword === 'WORKDIR') {
          const dir = instruction.getArgumentsContent()?.trim() ?? '/';
          workdir = path.posix.resolve(workdir, dir);
        } else if (keyword === 'RUN') {
          for (const words of shellCommands(instruction.getArgumentsContent() ?? '')) {
            const install = dependencyInstall(words);
            if (install) producer = { line: lineOf(instruction), production: install.production, via: install.command };
          }
        } else if (keyword === 'COPY') {
          const from = instruction.getFromFlag()?.getValue() ?? null;
          const sources = instruction.getArguments().map((argument) => argument.getValue()).slice(0, -1);
          const source = from === null ? null : internalStage(from, current.index);
          const sourceModules = source && depth < stages.length ? nodeModulesOf(source, depth + 1) : null;
          const carries = sources.some((src) => {
            if (/(^|\/)node_modules(\/|$)/.test(src)) return true;
            if (!sourceModules?.dir) return false;
            const absolute = path.posix.resolve(sourceModules.workdir, src);
            return sourceModules.dir === absolute || sourceModules.dir.startsWith(absolute.replace(/\/?$/, '/'));
          });
          if (!carries) continue;
          if (from === null) producer = { line: lineOf(instruction), production: false, via: 'COPY of node_modules from the build context' };
          else if (!source) producer = { line: lineOf(instruction), production: false, via: `COPY --from=${from} (an external image: cannot verify it holds production dependencies only)` };
          else if (!sourceModules?.producer) producer = { line: lineOf(instruction), production: false, via: `COPY --from=${from} (that stage installs no dependencies)` };
          else producer = { line: lineOf(instruction), production: sourceModules.producer.production, via: `COPY --from=${from} <- ${sourceModules.producer.via} (line ${sourceModules.producer.line})` };
        }
      }
    }
    return { workdir, dir: producer ? path.posix.join(workdir, 'node_modules') : null, producer };
  };

  const finalStage = stages.at(-1);
  const finalChain = chainOf(finalStage);
  const finalInstructions = finalChain.flatMap((stage) => stage.instructions);
  const finalLine = lineOf(finalStage.from);
  const last = (keyword) => finalInstructions.filter((instruction) => instruction.getKeyword() === keyword).at(-1);
  /** The value the final stage's ENV gives `name` last. */
  const envValue = (name) =>
    finalInstructions
      .filter((instruction) => instruction.getKeyword() === 'ENV')
      .flatMap((instruction) => instruction.getProperties())
      .filter((property) => property.getName() === name)
      .at(-1)
      ?.getValue();

  const user = last('USER');
  if (!user) {
    report('final-user', finalLine, 'the final stage runs as root: add USER with a non-root numeric uid (e.g. USER 1000:1000)');
  } else {
    const value = expand(user.getArgumentsContent()?.trim() ?? '', globalArgs);
    if (value === null || value === '') report('final-user', lineOf(user), `USER ${user.getArgumentsContent()}: cannot tell whether this is root`);
    else if (isRoot(value)) report('final-user', lineOf(user), `USER ${value}: the final stage must not run as root`);
  }

  for (const keyword of ['ENTRYPOINT', 'CMD']) {
    const instruction = last(keyword);
    if (!instruction) continue;
    const parsed = execForm(instruction);
    if (parsed.form === 'shell') {
      report('exec-form', lineOf(instruction), `${keyword} ${parsed.content}: shell form runs under /bin/sh, which does not forward SIGTERM; use the JSON exec form`);
    } else if (parsed.args.some((arg) => /\$\{?[A-Za-z_]/.test(arg))) {
      report('exec-form', lineOf(instruction), `${keyword} ${parsed.content}: exec form does not expand variables; resolve them at build time`);
    }
  }
  if (!last('CMD') && !last('ENTRYPOINT')) report('exec-form', finalLine, 'the final stage sets neither CMD nor ENTRYPOINT: it would run the base image default');

  const command = last('CMD');
  const runsWith = nodeFlagsOf(envValue('NODE_OPTIONS'), command && execForm(command));
  const missingFlags = nodeFlags.filter((flag) => !runsWith.has(flag));
  if (missingFlags.length > 0) {
    report('node-flags', command ? lineOf(command) : finalLine, `node runs without ${missingFlags.join(' ')} (package.json config.node_flags): put them in CMD between node and the script`);
  }

  const appArg = finalStage.instructions.find((instruction) => instruction.getKeyword() === 'ARG' && instruction.getProperties().some((property) => property.getName() === 'APP'));
  if (!appArg) {
    report('arg-app', finalLine, globalArgs.has('APP')
      ? 'ARG APP is declared only before FROM: redeclare `ARG APP` in the final stage to use it there'
      : 'no ARG APP in the final stage: the one Dockerfile must select the deployable with --build-arg APP=<name>');
  } else {
    const after = finalStage.instructions.filter((instruction) => lineOf(instruction) > lineOf(appArg));
    if (!after.some((instruction) => referencesVariable(instruction.getArgumentsContent() ?? '', 'APP'))) {
      report('arg-app', lineOf(appArg), 'ARG APP is declared but never used: the image would not depend on the chosen deployable');
    }
  }

  if (envValue('NODE_ENV') !== 'production') report('node-env', finalLine, 'the final stage must set ENV NODE_ENV=production');

  const modules = nodeModulesOf(finalStage);
  if (!modules.producer) {
    report('prod-deps', finalLine, 'the final stage has no node_modules: run `npm ci --omit=dev` in it or copy node_modules from a stage that does');
  } else if (!modules.producer.production) {
    report('prod-deps', modules.producer.line, `node_modules of the final stage come from ${modules.producer.via}: dev dependencies would ship; use npm ci --omit=dev or npm prune --omit=dev`);
  }

  problems.sort((a, b) => a.line - b.line);
  return { problems, stages: stages.length, finalStage: finalStage.name ?? String(finalStage.index) };
}

// --- self-test: a good Dockerfile passes, and each bad variant is rejected by the expected rule.

const GOOD = `ARG BASE=node:24.21.0-slim
FROM \${BASE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
FROM \${BASE} AS build
WORKDIR /app
COPY . .
RUN npm ci && npm run build
FROM \${BASE}
ARG APP
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends tini
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
RUN ln -s "dist/apps/\${APP}/main.js" main.js
ENV NODE_ENV=production APP=\${APP}
USER 1000:1000
CMD ["node", "--expose-gc", "main.js"]
`;
const GOOD_FLAGS = { nodeFlags: ['--expose-gc'] };

/** Each case: a description, the Dockerfile text, and the rule that must reject it. */
const BAD_CASES = [
  ['final stage without USER', GOOD.replace('USER 1000:1000\n', ''), 'final-user'],
  ['final stage USER root', GOOD.replace('USER 1000:1000', 'USER root'), 'final-user'],
  ['final stage USER 0:0', GOOD.replace('USER 1000:1000', 'USER 0:0'), 'final-user'],
  ['untagged base image', GOOD.replace('BASE=node:24.21.0-slim', 'BASE=node'), 'base-image-tag'],
  ['latest base image', GOOD.replace('BASE=node:24.21.0-slim', 'BASE=node:latest'), 'base-image-tag'],
  ['unresolvable base image', GOOD.replace('ARG BASE=node:24.21.0-slim', 'ARG BASE'), 'base-image-tag'],
  ['ADD of a URL', GOOD.replace('USER 1000', 'ADD https://example.com/tool.tgz /opt/\nUSER 1000'), 'add-url'],
  ['node_modules from a full npm ci', GOOD.replace('RUN npm ci --omit=dev', 'RUN npm ci'), 'prod-deps'],
  ['whole build stage copied (dev deps inside)', GOOD.replace('COPY --from=deps /app/node_modules node_modules', 'COPY --from=build /app ./'), 'prod-deps'],
  ['node_modules from the build context', GOOD.replace('COPY --from=deps /app/node_modules node_modules', 'COPY node_modules node_modules'), 'prod-deps'],
  ['no node_modules at all', GOOD.replace('COPY --from=deps /app/node_modules node_modules\n', ''), 'prod-deps'],
  ['apt-get install without --no-install-recommends', GOOD.replace(' --no-install-recommends', ''), 'apt-no-recommends'],
  ['shell-form CMD', GOOD.replace('CMD ["node", "--expose-gc", "main.js"]', 'CMD node --expose-gc main.js'), 'exec-form'],
  ['CMD with single quotes (shell form in disguise)', GOOD.replace('CMD ["node", "--expose-gc", "main.js"]', "CMD ['node', '--expose-gc', 'main.js']"), 'exec-form'],
  ['unknown instruction flag', GOOD.replace('COPY --from=deps', 'COPY --frm=deps'), 'syntax'],
  ['exec-form CMD relying on ${APP}', GOOD.replace('"main.js"]', '"dist/apps/${APP}/main.js"]'), 'exec-form'],
  ['no ARG APP', GOOD.replace('ARG APP\n', '').replaceAll('${APP}', 'gateway'), 'arg-app'],
  ['ARG APP only before FROM', `ARG APP\n${GOOD.replace('ARG APP\n', '')}`, 'arg-app'],
  ['ARG APP never used', GOOD.replace('RUN ln -s "dist/apps/${APP}/main.js" main.js', 'RUN ln -s dist/apps/gateway/main.js main.js').replace('APP=${APP}', 'APP=gateway'), 'arg-app'],
  ['no NODE_ENV=production', GOOD.replace('NODE_ENV=production', 'NODE_ENV=development'), 'node-env'],
  ['CMD without the deployables\' node flags', GOOD.replace('"--expose-gc", ', ''), 'node-flags'],
  ['the node flags after the script (they would be its arguments)', GOOD.replace('"--expose-gc", "main.js"', '"main.js", "--expose-gc"'), 'node-flags'],
];

export function selfTest() {
  const failures = [];
  const good = lintDockerfile(GOOD, GOOD_FLAGS).problems;
  if (good.length > 0) failures.push(`the good Dockerfile was rejected: ${good.map((p) => `[${p.rule}] ${p.message}`).join('; ')}`);
  for (const [description, text, rule] of BAD_CASES) {
    if (text === GOOD) failures.push(`case "${description}" did not change the good Dockerfile (broken test case)`);
    const rules = lintDockerfile(text, GOOD_FLAGS).problems.map((problem) => problem.rule);
    if (!rules.includes(rule)) failures.push(`case "${description}" was not rejected by rule ${rule} (got: ${rules.join(', ') || 'no problems'})`);
  }
  return { failures, cases: BAD_CASES.length + 1 };
}

function main(argv) {
  if (argv.includes('--self-test')) {
    const { failures, cases } = selfTest();
    for (const failure of failures) console.error(`  FAIL ${failure}`);
    console.log(`lint-dockerfile self-test: ${cases - failures.length}/${cases} cases behaved as expected`);
    return failures.length === 0 ? 0 : 1;
  }
  const files = argv.filter((arg) => !arg.startsWith('--'));
  const nodeFlags = deployedNodeFlags();
  let total = 0;
  const summaries = [];
  for (const file of files.length > 0 ? files : [DEFAULT_FILE]) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      console.error(`${file}: cannot read (${error.code ?? error.message})`);
      total += 1;
      summaries.push(`${file} unreadable`);
      continue;
    }
    const { problems, stages, finalStage } = lintDockerfile(text, { nodeFlags });
    for (const problem of problems) console.error(`${file}:${problem.line}: [${problem.rule}] ${problem.message}`);
    total += problems.length;
    summaries.push(`${file} ${problems.length === 0 ? 'OK' : `${problems.length} problem(s)`} (${stages} stages, final "${finalStage}")`);
  }
  console.log(`lint-dockerfile: ${total === 0 ? 'passed' : 'FAILED'}: ${summaries.join('; ') || 'no file linted'}`);
  return total === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
