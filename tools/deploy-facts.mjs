// Facts about the project that the packaging validators check manifests against, read from the
// source itself so they cannot drift: which deployables exist and which environment variables they read.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const PLATFORM_CONFIG = path.join(ROOT, 'libs/platform/src/config/config.ts');
const NODE_ENV_VARS = ['NODE_ENV', 'NODE_OPTIONS'];

/** The node flags every deployable runs with: package.json's config.node_flags (start scripts, image, bench). */
export function deployedNodeFlags(root = ROOT) {
  return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).config.node_flags.split(/\s+/);
}

export function listDeployables(root = ROOT) {
  return readdirSync(path.join(root, 'apps'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The platform config, plus a feature's own `*.config.ts` for a setting only that feature reads. */
function configSources(root = ROOT) {
  const features = readdirSync(path.join(root, 'apps'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.config.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
  return [PLATFORM_CONFIG, ...features].map((file) => readFileSync(file, 'utf8')).join('\n');
}

/** The environment variables the code reads (`env.X`, `env['X']`, `int(env, 'X'…`). */
export function configEnvVars(source = configSources()) {
  const names = new Set(NODE_ENV_VARS);
  for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]|\(env, '([A-Z][A-Z0-9_]*)'/g)) {
    names.add(match[1] ?? match[2] ?? match[3]);
  }
  if (!names.has('DATABASE_URL') || !names.has('NATS_URL')) throw new Error('cannot read the configuration variables from the config sources');
  return names;
}
