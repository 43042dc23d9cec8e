// Validates the Kubernetes manifests offline: renders each kustomization with `kubectl kustomize`,
// validates every object against the Kubernetes API schemas (kubernetes-models; an unknown kind is
// an error, never skipped), then checks the deployment policy: every deployable but all-in-one has
// a hardened Deployment with requests and limits, probes on the port its configuration opens,
// non-root user, read-only root filesystem; jobs-worker is autoscaled; references resolve.
//
//   node tools/validate-k8s.mjs [kustomization dir...]   (default: base and every overlay)
//   node tools/validate-k8s.mjs --self-test              (proves each check rejects a bad input)
//
// Exit code 0 when clean, 1 on any problem; the last line printed is a one-line summary.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { configEnvVars, listDeployables, ROOT } from './deploy-facts.mjs';
import { natsPasswordVariable, renderAuthorization } from './nats-authorization.mjs';

const NAMESPACE = 'learning-service';
/** The queues jobs-worker scales on: the events stream (no NATS_NAMESPACE in production) and each durable consumer the workers serve. */
const { JOBS_WORKER_CONSUMER } = await import(path.join(ROOT, 'libs/contracts/src/jobs/jobs.contract.ts'));
// Read, not imported: that contract's DTOs carry decorators, which type stripping cannot run.
const NOTIFICATIONS_CONSUMER = /export const NOTIFICATIONS_CONSUMER = '([^']+)'/.exec(readFileSync(path.join(ROOT, 'libs/contracts/src/jobs/notifications.contract.ts'), 'utf8'))[1];
const WORKER_CONSUMERS = [JOBS_WORKER_CONSUMER, NOTIFICATIONS_CONSUMER];
const JOBS_STREAM = 'EVENTS';
const PART_OF = 'learning-service';

/**
 * The kustomizations to check. `allowLatest`: the base may use `:latest` placeholders that
 * overlays replace. `infrastructure`: NATS and Postgres for the application (other checks).
 */
const TARGETS = [
  { dir: 'k8s/base', allowLatest: true },
  { dir: 'k8s/overlays/production', allowLatest: false },
  { dir: 'k8s/overlays/keda', allowLatest: false },
  { dir: 'k8s/overlays/infrastructure', infrastructure: true },
];

/** Kubernetes hosts every deployable except the all-in-one (development and small installs). */
const NOT_IN_KUBERNETES = new Set(['all-in-one']);
/** Deployables without a database (the HTTP edge) and the one that serves HTTP on PORT. */
const WITHOUT_DATABASE = new Set(['gateway']);
const HTTP_DEPLOYABLES = new Set(['gateway']);
/** Deployables whose replica count an autoscaler must own. */
const AUTOSCALED = new Set(['jobs-worker']);
/** Settings the Kubernetes manifests leave unset on purpose, and why. */
const NOT_WIRED = {
  NODE_ENV: 'set by the image',
  NODE_OPTIONS: 'set by the image',
  METRICS_TOKEN: '/metrics is served on HEALTH_PORT, inside the cluster only',
  EMBEDDED_POSTGRES_PORT: 'the all-in-one embedded database, which Kubernetes does not run',
  NATS_NAMESPACE: 'only for systems sharing one NATS server; an overlay sets it (the NATS users are rendered for it)',
  PUBLIC_URL: 'the ingress\'s public URL, which only an overlay knows (the production overlay sets it)',
};
/** Namespaced kinds that live at cluster scope (no metadata.namespace). */
/** The NATS server's users and permissions (k8s/base/nats/authorization.conf), rendered from the one source. */
const NATS_AUTHORIZATION = 'learning-service-nats-authorization';
/** Each deployable's NATS password: this Secret, key natsPasswordVariable(<deployable>). */
const NATS_SECRET = 'learning-service-nats';
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass', 'IngressClass', 'PersistentVolume']);

/** The deployables are the apps/ folders: a new app cannot be forgotten here. */
/** Schemas: the Kubernetes API, and the custom resources of KEDA and CloudNativePG (kubernetes-models). */
const MODEL_PACKAGES = ['kubernetes-models', '@kubernetes-models/keda', '@kubernetes-models/cloudnative-pg'];
const modelCache = new Map();
/** Model class for apiVersion + kind, or null when no package has one. */
async function modelFor(apiVersion, kind) {
  const key = `${apiVersion}/${kind}`;
  if (!modelCache.has(key)) {
    let model = null;
    for (const pkg of MODEL_PACKAGES) {
      const module = await import(`${pkg}/${apiVersion}`).catch(() => null);
      const candidate = module?.[kind];
      // Only top-level kinds carry apiVersion/kind; sub-types such as Container do not.
      if (candidate && candidate.kind === kind && candidate.apiVersion === apiVersion) {
        model = candidate;
        break;
      }
    }
    modelCache.set(key, model);
  }
  return modelCache.get(key);
}

/** Kubernetes quantity ("250m", "512Mi", "1") as a number, or NaN. */
function quantity(value) {
  const match = /^([0-9.]+(?:e[0-9]+)?)([a-zA-Z]*)$/.exec(String(value));
  if (!match) return Number.NaN;
  const factors = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
  return match[2] in factors ? Number(match[1]) * factors[match[2]] : Number.NaN;
}

/** Splits an image reference into name, tag and digest. */
function imageReference(ref) {
  const [withoutDigest, digest] = ref.split('@');
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > withoutDigest.lastIndexOf('/');
  return { name: hasTag ? withoutDigest.slice(0, colon) : withoutDigest, tag: hasTag ? withoutDigest.slice(colon + 1) : null, digest: digest ?? null };
}

const matchesSelector = (selector, labels) => Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value);
const nameOf = (object) => `${object.kind}/${object.metadata?.name ?? '?'}`;

/** Validates every object against its API schema; a kind without a schema is a problem. */
async function validateSchemas(objects, problems) {
  for (const object of objects) {
    if (!object || typeof object !== 'object' || !object.apiVersion || !object.kind) {
      problems.push(`an object without apiVersion/kind: ${JSON.stringify(object).slice(0, 80)}`);
      continue;
    }
    const Model = await modelFor(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${nameOf(object)}: unknown kind ${object.apiVersion}/${object.kind} (no schema in ${MODEL_PACKAGES.join(', ')})`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${nameOf(object)}: schema: ${error.message}`);
    }
  }
}

/** Environment a container sees: ConfigMap envFrom plus literal env values (secrets: present, value unknown). */
function containerEnvironment(container, configMaps, where, problems) {
  const env = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const configMap = configMaps.get(source.configMapRef.name);
      if (!configMap && !source.configMapRef.optional) problems.push(`${where}: envFrom ConfigMap "${source.configMapRef.name}" is not in the manifests`);
      Object.assign(env, configMap?.data ?? {});
    }
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.configMapKeyRef) {
      const { name, key, optional } = variable.valueFrom.configMapKeyRef;
      const value = configMaps.get(name)?.data?.[key];
      if (value === undefined && !optional) problems.push(`${where}: env ${variable.name} refers to ConfigMap ${name} key ${key}, which is not in the manifests`);
      env[variable.name] = value;
    } else env[variable.name] = { secret: variable.valueFrom?.secretKeyRef ?? null };
  }
  return env;
}

/** Policy for one Deployment: resources, probes, hardening, configuration. */
function checkDeployment(deployment, context, problems) {
  const { configMaps, configVars, allowLatest } = context;
  const name = deployment.metadata.name;
  const where = `Deployment/${name}`;
  const template = deployment.spec?.template ?? {};
  const podSpec = template.spec ?? {};
  const podSecurity = podSpec.securityContext ?? {};
  const labels = template.metadata?.labels ?? {};

  if (deployment.metadata.labels?.['app.kubernetes.io/name'] !== name || labels['app.kubernetes.io/name'] !== name) {
    problems.push(`${where}: metadata and pod template need the label app.kubernetes.io/name=${name}`);
  }
  if (labels['app.kubernetes.io/part-of'] !== PART_OF) problems.push(`${where}: pod template needs the label app.kubernetes.io/part-of=${PART_OF}`);
  if (!matchesSelector(deployment.spec?.selector?.matchLabels, labels)) problems.push(`${where}: selector does not match the pod template labels`);
  if (podSpec.terminationGracePeriodSeconds === undefined) problems.push(`${where}: set terminationGracePeriodSeconds (time to drain NATS subscriptions and requests)`);
  if (podSpec.hostNetwork || podSpec.hostPID || podSpec.hostIPC) problems.push(`${where}: must not share host namespaces`);

  const volumes = new Map((podSpec.volumes ?? []).map((volume) => [volume.name, volume]));
  for (const container of podSpec.containers ?? []) {
    const at = `${where} container ${container.name}`;
    const security = container.securityContext ?? {};

    const { requests = {}, limits = {} } = container.resources ?? {};
    for (const resource of ['cpu', 'memory']) {
      if (requests[resource] === undefined) problems.push(`${at}: resources.requests.${resource} missing`);
      if (limits[resource] === undefined) problems.push(`${at}: resources.limits.${resource} missing`);
      if (requests[resource] !== undefined && limits[resource] !== undefined) {
        const [request, limit] = [quantity(requests[resource]), quantity(limits[resource])];
        if (Number.isNaN(request) || Number.isNaN(limit)) problems.push(`${at}: ${resource} quantities "${requests[resource]}"/"${limits[resource]}" are not valid`);
        else if (request > limit) problems.push(`${at}: ${resource} request ${requests[resource]} exceeds its limit ${limits[resource]}`);
      }
    }

    const runAsNonRoot = security.runAsNonRoot ?? podSecurity.runAsNonRoot;
    const runAsUser = security.runAsUser ?? podSecurity.runAsUser;
    if (runAsNonRoot !== true) problems.push(`${at}: securityContext.runAsNonRoot must be true`);
    if (runAsUser === 0) problems.push(`${at}: runAsUser 0 is root`);
    if (security.allowPrivilegeEscalation !== false) problems.push(`${at}: securityContext.allowPrivilegeEscalation must be false`);
    if (security.privileged) problems.push(`${at}: must not be privileged`);
    if (security.readOnlyRootFilesystem !== true) problems.push(`${at}: securityContext.readOnlyRootFilesystem must be true`);
    else {
      const tmp = (container.volumeMounts ?? []).find((mount) => mount.mountPath === '/tmp');
      if (!tmp || !volumes.get(tmp.name)?.emptyDir) problems.push(`${at}: with a read-only root filesystem, mount an emptyDir on /tmp`);
    }
    if (!(security.capabilities?.drop ?? []).includes('ALL')) problems.push(`${at}: drop all capabilities (capabilities.drop: [ALL])`);

    const image = String(container.image ?? '');
    const reference = imageReference(image);
    if (reference.name.split('/').at(-1) !== name) problems.push(`${at}: image "${image}" is not the ${name} image`);
    if (!allowLatest && reference.digest === null && (reference.tag === null || reference.tag === 'latest')) {
      problems.push(`${at}: image "${image}" is not pinned (a release tag or digest, never latest)`);
    }

    const ports = container.ports ?? [];
    const portByName = new Map(ports.filter((port) => port.name).map((port) => [port.name, port.containerPort]));
    const probePort = (probe, kind) => {
      if (!probe) {
        problems.push(`${at}: ${kind} missing`);
        return null;
      }
      const handler = probe.httpGet ?? probe.tcpSocket ?? probe.grpc;
      if (!handler && !probe.exec) {
        problems.push(`${at}: ${kind} has no handler`);
        return null;
      }
      if (!handler) return null;
      const port = handler.port;
      if (typeof port === 'string' && !/^\d+$/.test(port)) {
        if (!portByName.has(port)) problems.push(`${at}: ${kind} port "${port}" names no container port (${[...portByName.keys()].join(', ') || 'none named'})`);
        return portByName.get(port) ?? null;
      }
      if (!ports.some((declared) => declared.containerPort === Number(port))) problems.push(`${at}: ${kind} port ${port} is not a declared container port`);
      return Number(port);
    };
    const liveness = probePort(container.livenessProbe, 'livenessProbe');
    const readiness = probePort(container.readinessProbe, 'readinessProbe');
    if (container.startupProbe) probePort(container.startupProbe, 'startupProbe');
    if (container.livenessProbe?.httpGet && container.livenessProbe.httpGet.path !== '/healthz') problems.push(`${at}: livenessProbe must GET /healthz`);
    if (container.readinessProbe?.httpGet && container.readinessProbe.httpGet.path !== '/readyz') problems.push(`${at}: readinessProbe must GET /readyz`);

    const env = containerEnvironment(container, configMaps, at, problems);
    // ConfigMap keys are checked once, at the ConfigMap.
    for (const { name: key } of container.env ?? []) {
      if (!configVars.has(key)) problems.push(`${at}: env ${key} is not read by the configuration (typo?)`);
    }
    if (!env.NATS_URL) problems.push(`${at}: NATS_URL missing (the service would use the in-process bus and never meet the others)`);
    if (!env.CONTEXT_SIGNING_KEY) problems.push(`${at}: CONTEXT_SIGNING_KEY missing (required with NATS_URL: the gateway signs and services verify caller contexts)`);
    if (WITHOUT_DATABASE.has(name)) {
      if (env.DATABASE_URL) problems.push(`${at}: holds no database, remove DATABASE_URL`);
    } else if (!env.DATABASE_URL) problems.push(`${at}: DATABASE_URL missing (the service would start embedded Postgres)`);
    // Its own NATS user, with its own password from the Secret the NATS server reads too.
    if (env.NATS_USER !== name) problems.push(`${at}: NATS_USER must be "${name}" (its own user in ${NATS_AUTHORIZATION}), got ${JSON.stringify(env.NATS_USER ?? null)}`);
    const password = env.NATS_PASSWORD?.secret;
    if (!password || password.name !== NATS_SECRET || password.key !== natsPasswordVariable(name)) {
      problems.push(`${at}: NATS_PASSWORD must come from Secret ${NATS_SECRET} key ${natsPasswordVariable(name)}`);
    }
    for (const key of ['DATABASE_URL', 'NATS_URL', 'BOOTSTRAP_ADMIN_TOKEN', 'CONTEXT_SIGNING_KEY', 'NATS_PASSWORD']) {
      if (typeof env[key] === 'string') problems.push(`${at}: ${key} is a plain value; take it from a Secret (secretKeyRef)`);
    }
    // The probes must hit the port the configuration makes the process open.
    const portVar = HTTP_DEPLOYABLES.has(name) ? 'PORT' : 'HEALTH_PORT';
    const configured = Number(env[portVar] ?? (portVar === 'PORT' ? 3000 : 9000));
    for (const [kind, port] of [['livenessProbe', liveness], ['readinessProbe', readiness]]) {
      if (port !== null && port !== configured) problems.push(`${at}: ${kind} targets port ${port}, but ${portVar} is ${configured}`);
    }
  }
  if ((podSpec.containers ?? []).length === 0) problems.push(`${where}: no containers`);
}

/** Where KEDA reads the JetStream consumer lag: the monitoring port of the infrastructure overlay's NATS. */
const NATS_MONITORING_ENDPOINT = 'nats.nats.svc.cluster.local:8222';

/**
 * What the KEDA schema cannot say: the ScaledObject watches the workers' real queues, every one of them (a
 * queue without a trigger waits while no worker runs), and a worker scaled to zero still wakes for its sweeps.
 */
function checkScaledObject(object, problems) {
  const where = `ScaledObject/${object.metadata?.name}`;
  const spec = object.spec ?? {};
  const triggers = spec.triggers ?? [];
  if (triggers.length === 0) problems.push(`${where}: no triggers`);
  const queues = triggers.filter((trigger) => trigger.type === 'nats-jetstream');
  for (const queue of queues) {
    if (queue.metadata?.stream !== JOBS_STREAM || !WORKER_CONSUMERS.includes(queue.metadata?.consumer)) {
      problems.push(`${where}: a nats-jetstream trigger must watch stream ${JOBS_STREAM}, consumer ${WORKER_CONSUMERS.join(' or ')} (the workers' queues)`);
    }
    if (queue.metadata?.natsServerMonitoringEndpoint !== NATS_MONITORING_ENDPOINT) {
      problems.push(`${where}: natsServerMonitoringEndpoint must be ${NATS_MONITORING_ENDPOINT} (the NATS of k8s/overlays/infrastructure)`);
    }
  }
  for (const consumer of WORKER_CONSUMERS) {
    if (!queues.some((queue) => queue.metadata?.consumer === consumer)) problems.push(`${where}: no trigger on consumer ${consumer}: its events would wait while no worker runs`);
  }
  if ((spec.minReplicaCount ?? 1) === 0 && !triggers.some((trigger) => trigger.type === 'cron')) {
    problems.push(`${where}: minReplicaCount 0 needs a cron trigger, or no worker runs the retention and file sweeps while no job comes`);
  }
  // KEDA refuses a fallback beside CPU or memory triggers.
  if (spec.fallback && (spec.triggers ?? []).some((trigger) => trigger.type === 'cpu' || trigger.type === 'memory')) problems.push(`${where}: fallback is not supported with cpu or memory triggers`);
  if ((spec.minReplicaCount ?? 0) > (spec.maxReplicaCount ?? 100)) problems.push(`${where}: minReplicaCount exceeds maxReplicaCount`);
}

/**
 * Checks rendered objects. Options: deployables (apps), configVars (what loadConfig reads),
 * allowLatest. Returns { problems, counts }.
 */
export async function validateObjects(objects, options) {
  const problems = [];
  const { deployables, configVars, allowLatest = false, natsAuthorization } = options;
  await validateSchemas(objects, problems);

  const seen = new Set();
  for (const object of objects) {
    const key = `${object?.kind}/${object?.metadata?.namespace ?? ''}/${object?.metadata?.name}`;
    if (seen.has(key)) problems.push(`${nameOf(object)}: defined twice`);
    seen.add(key);
    if (object?.kind && !CLUSTER_SCOPED.has(object.kind) && object.metadata?.namespace !== NAMESPACE) {
      problems.push(`${nameOf(object)}: namespace "${object.metadata?.namespace}" instead of ${NAMESPACE}`);
    }
  }

  const ofKind = (kind) => objects.filter((object) => object?.kind === kind);
  const configMaps = new Map(ofKind('ConfigMap').map((configMap) => [configMap.metadata.name, configMap]));
  // The NATS authorization holds a server configuration, not environment variables: it must be what the source renders.
  const authorization = configMaps.get(NATS_AUTHORIZATION);
  if (!authorization) problems.push(`ConfigMap/${NATS_AUTHORIZATION} missing (the NATS users and permissions of the deployables)`);
  else if (authorization.data?.['authorization.conf'] !== natsAuthorization) {
    problems.push(`ConfigMap/${NATS_AUTHORIZATION}: authorization.conf is not what tools/nats-authorization.mjs renders (run it)`);
  }
  for (const configMap of configMaps.values()) {
    if (configMap === authorization) continue;
    for (const key of Object.keys(configMap.data ?? {})) {
      if (!configVars.has(key)) problems.push(`ConfigMap/${configMap.metadata.name}: key ${key} is not read by the configuration (typo?)`);
    }
  }
  const deployments = new Map(ofKind('Deployment').map((deployment) => [deployment.metadata?.name, deployment]));
  for (const deployment of deployments.values()) {
    if (!deployment.metadata?.name) continue;
    checkDeployment(deployment, { configMaps, configVars, allowLatest }, problems);
  }

  // Every setting the code reads is given somewhere (ConfigMap or a container's env), or left out on purpose.
  const given = new Set([...configMaps.values()].flatMap((configMap) => Object.keys(configMap.data ?? {})));
  for (const deployment of deployments.values()) {
    for (const container of [...(deployment.spec?.template?.spec?.containers ?? []), ...(deployment.spec?.template?.spec?.initContainers ?? [])]) {
      for (const variable of container.env ?? []) given.add(variable.name);
    }
  }
  for (const variable of configVars) {
    if (!given.has(variable) && !(variable in NOT_WIRED)) problems.push(`setting ${variable} is read by the code but given to no Deployment (wire it, or add it to NOT_WIRED with the reason)`);
  }

  const expected = deployables.filter((app) => !NOT_IN_KUBERNETES.has(app));
  for (const app of expected) if (!deployments.has(app)) problems.push(`deployable "${app}" has no Deployment`);
  for (const name of deployments.keys()) {
    if (NOT_IN_KUBERNETES.has(name)) problems.push(`Deployment/${name}: ${name} is for development and small installs, not Kubernetes`);
    else if (!deployables.includes(name)) problems.push(`Deployment/${name}: not a deployable (no apps/${name})`);
  }

  // Autoscaling: an HPA (or, in the KEDA overlay, a ScaledObject) owns the autoscaled replicas.
  const autoscalers = [
    ...ofKind('HorizontalPodAutoscaler').map((hpa) => ({ kind: 'HorizontalPodAutoscaler', target: hpa.spec?.scaleTargetRef, object: hpa })),
    ...ofKind('ScaledObject').map((so) => ({ kind: 'ScaledObject', target: { kind: 'Deployment', ...so.spec?.scaleTargetRef }, object: so })),
  ];
  for (const { kind, target, object } of autoscalers) {
    if (target?.kind !== 'Deployment' || !deployments.has(target?.name)) problems.push(`${kind}/${object.metadata?.name}: scales "${target?.kind}/${target?.name}", which is not a Deployment here`);
    if (kind === 'HorizontalPodAutoscaler') {
      if (object.apiVersion !== 'autoscaling/v2') problems.push(`${nameOf(object)}: use autoscaling/v2`);
      if ((object.spec?.minReplicas ?? 1) > object.spec?.maxReplicas) problems.push(`${nameOf(object)}: minReplicas exceeds maxReplicas`);
    }
  }
  for (const name of deployments.keys()) {
    const owners = autoscalers.filter(({ target }) => target?.name === name);
    if (AUTOSCALED.has(name) && owners.length === 0) problems.push(`Deployment/${name}: needs a HorizontalPodAutoscaler (autoscaling/v2) so it scales on its own`);
    if (owners.length > 1) problems.push(`Deployment/${name}: ${owners.length} autoscalers fight over it (${owners.map((owner) => owner.kind).join(', ')})`);
    if (owners.length > 0 && deployments.get(name).spec?.replicas !== undefined) {
      problems.push(`Deployment/${name}: sets spec.replicas although an autoscaler owns the count (every apply would reset it)`);
    }
  }
  for (const object of ofKind('ScaledObject')) checkScaledObject(object, problems);

  // Services and disruption budgets must select pods, and named target ports must exist.
  const podsOf = (selector) => [...deployments.values()].filter((deployment) => selector && Object.keys(selector).length > 0 && matchesSelector(selector, deployment.spec?.template?.metadata?.labels));
  for (const service of ofKind('Service')) {
    const selected = podsOf(service.spec?.selector);
    if (selected.length === 0) {
      problems.push(`${nameOf(service)}: selector matches no Deployment`);
      continue;
    }
    for (const port of service.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      const containers = selected.flatMap((deployment) => deployment.spec.template.spec?.containers ?? []);
      const found = containers.some((container) => (container.ports ?? []).some((declared) => declared.name === target || declared.containerPort === target));
      if (!found) problems.push(`${nameOf(service)}: targetPort ${target} is not a port of the selected pods`);
    }
  }
  if (deployments.has('gateway') && !ofKind('Service').some((service) => podsOf(service.spec?.selector).some((deployment) => deployment.metadata.name === 'gateway'))) {
    problems.push('Deployment/gateway: needs a Service');
  }
  const budgets = ofKind('PodDisruptionBudget');
  for (const budget of budgets) {
    if (podsOf(budget.spec?.selector?.matchLabels).length === 0) problems.push(`${nameOf(budget)}: selector matches no Deployment`);
  }
  if (deployments.has('gateway') && !budgets.some((budget) => podsOf(budget.spec?.selector?.matchLabels).some((deployment) => deployment.metadata.name === 'gateway'))) {
    problems.push('Deployment/gateway: needs a PodDisruptionBudget');
  }

  return { problems: [...new Set(problems)], counts: { objects: objects.length, deployments: deployments.size } };
}

/**
 * NATS and Postgres of k8s/overlays/infrastructure: what the schemas cannot say. NATS: three JetStream
 * nodes storing files on their own volume, the deployables' users, client and monitoring ports.
 * Postgres: three instances, backups (continuous and scheduled), the roles SQL run at creation, and a
 * managed login role per service. Options: natsAuthorization (rendered), rolesSql (the file), services.
 */
export async function validateInfrastructure(objects, { natsAuthorization, rolesSql, services }) {
  const problems = [];
  await validateSchemas(objects, problems);
  const find = (kind, name) => objects.find((object) => object?.kind === kind && object.metadata?.name === name);
  const require = (object, what) => {
    if (!object) problems.push(`${what} missing`);
    return object ?? {};
  };

  const nats = require(find('StatefulSet', 'nats'), 'StatefulSet/nats');
  if (nats.metadata?.namespace !== 'nats') problems.push('StatefulSet/nats: must be in the namespace nats (the network policies expect it there)');
  if ((nats.spec?.replicas ?? 1) < 3) problems.push('StatefulSet/nats: needs 3 replicas (JetStream keeps 3 copies and survives losing one node)');
  const pod = nats.spec?.template?.spec ?? {};
  const container = pod.containers?.[0] ?? {};
  const claims = (nats.spec?.volumeClaimTemplates ?? []).map((claim) => claim.metadata?.name);
  const dataMount = (container.volumeMounts ?? []).find((mount) => claims.includes(mount.name));
  if (!dataMount) problems.push('StatefulSet/nats: JetStream needs a volume claim template mounted in the container (file storage)');
  const configVolume = (pod.volumes ?? []).find((volume) => volume.configMap?.name?.startsWith('nats-config'));
  const natsConf = objects.find((object) => object?.kind === 'ConfigMap' && object.metadata?.name === configVolume?.configMap?.name)?.data?.['nats.conf'];
  if (!natsConf) problems.push('StatefulSet/nats: mounts no ConfigMap nats-config with nats.conf');
  else {
    const store = /store_dir:\s*(\S+)/.exec(natsConf)?.[1];
    if (!/jetstream\s*\{/.test(natsConf) || !store || !dataMount || !store.startsWith(dataMount.mountPath)) {
      problems.push(`nats.conf: jetstream.store_dir must be on the data volume (${dataMount?.mountPath ?? '?'})`);
    }
    const include = /include\s+\.\/(\S+)\/authorization\.conf/.exec(natsConf)?.[1];
    const authorizationMount = (pod.volumes ?? []).find((volume) => volume.configMap?.name === NATS_AUTHORIZATION);
    const mountPath = (container.volumeMounts ?? []).find((mount) => mount.name === authorizationMount?.name)?.mountPath;
    if (!include || !authorizationMount || mountPath !== `/etc/nats/${include}`) problems.push(`nats.conf: must include the mounted ConfigMap ${NATS_AUTHORIZATION} (the deployables' users)`);
  }
  if (!(container.envFrom ?? []).some((source) => source.secretRef?.name === NATS_SECRET)) problems.push(`StatefulSet/nats: needs the passwords of Secret ${NATS_SECRET} in its environment`);
  const authorization = require(find('ConfigMap', NATS_AUTHORIZATION), `ConfigMap/${NATS_AUTHORIZATION}`);
  if (authorization.data && authorization.data['authorization.conf'] !== natsAuthorization) problems.push(`ConfigMap/${NATS_AUTHORIZATION}: not what tools/nats-authorization.mjs renders`);
  const service = require(find('Service', 'nats'), 'Service/nats');
  const ports = (service.spec?.ports ?? []).map((port) => port.port);
  if (!ports.includes(4222) || !ports.includes(8222)) problems.push('Service/nats: needs the client (4222) and monitoring (8222) ports');
  if (`${service.metadata?.name}.${service.metadata?.namespace}.svc.cluster.local:8222` !== NATS_MONITORING_ENDPOINT) problems.push(`Service/nats: KEDA reads ${NATS_MONITORING_ENDPOINT}`);

  const cluster = require(objects.find((object) => object?.kind === 'Cluster'), 'Cluster (CloudNativePG)');
  if (cluster.metadata?.namespace !== 'db') problems.push('Cluster: must be in the namespace db (the network policies expect it there)');
  if ((cluster.spec?.instances ?? 1) < 3) problems.push('Cluster: needs 3 instances (a primary and two replicas)');
  if (!cluster.spec?.backup?.barmanObjectStore && !(cluster.spec?.plugins ?? []).some((plugin) => plugin.isWALArchiver)) problems.push('Cluster: needs continuous backup (WAL archiving to object storage)');
  if (!objects.some((object) => object?.kind === 'ScheduledBackup' && object.spec?.cluster?.name === cluster.metadata?.name)) problems.push('Cluster: needs a ScheduledBackup');
  const sqlRefs = cluster.spec?.bootstrap?.initdb?.postInitApplicationSQLRefs?.configMapRefs ?? [];
  const runsRoles = sqlRefs.some((ref) => objects.find((object) => object?.kind === 'ConfigMap' && object.metadata?.name === ref.name)?.data?.[ref.key] === rolesSql);
  if (!runsRoles) problems.push('Cluster: bootstrap must run k8s/base/postgres/roles.sql (postInitApplicationSQLRefs)');
  const roles = new Map((cluster.spec?.managed?.roles ?? []).map((role) => [role.name, role]));
  for (const service of services) {
    const role = roles.get(`lms_${service}`);
    if (!role?.login || role.inherit !== false || !role.passwordSecret?.name) problems.push(`Cluster: managed role lms_${service} must log in with a password Secret and inherit nothing (as roles.sql makes it)`);
  }
  return { problems: [...new Set(problems)], counts: { objects: objects.length } };
}

/** The services with a schema, as roles.sql lists them. */
const rolesServices = (sql) => [...(/ARRAY\[([^\]]+)\]/.exec(sql)?.[1].matchAll(/'([a-z-]+)'/g) ?? [])].map((match) => match[1]);

/** Renders a kustomization with kubectl (offline). */
function render(dir) {
  const result = spawnSync('kubectl', ['kustomize', dir], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`cannot run kubectl (${result.error.code ?? result.error.message}): install kubectl >= 1.27`);
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr.trim()}`);
  const documents = parseAllDocuments(result.stdout);
  const errors = documents.flatMap((document) => document.errors);
  if (errors.length > 0) throw new Error(`kubectl kustomize ${dir} produced invalid YAML: ${errors[0].message}`);
  return documents.map((document) => document.toJS()).filter((object) => object !== null);
}

// --- self-test: a small good set passes, and each bad variant is rejected with the expected reason.

const SELF_TEST_APPS = ['all-in-one', 'gateway', 'identity', 'jobs-worker'];
const SELF_TEST_VARS = configEnvVars("env.PORT env.HOST int(env, 'HEALTH_PORT' url(env, 'DATABASE_URL' url(env, 'NATS_URL' env.LOG_LEVEL env.CONTEXT_SIGNING_KEY env.NATS_USER env.NATS_PASSWORD");
const SELF_TEST_AUTHORIZATION = 'authorization { users: [] }\n';

function goodObjects() {
  const secret = (key) => ({ valueFrom: { secretKeyRef: { name: 'learning-service-secrets', key } } });
  const deployment = (name, port, { database = true, replicas = 1 } = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': PART_OF } },
    spec: {
      ...(replicas === null ? {} : { replicas }),
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': PART_OF } },
        spec: {
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 1000 },
          containers: [{
            name,
            image: `registry.example.com/learning-service/${name}:1.0.0`,
            ports: [{ name: port.name, containerPort: port.number }],
            envFrom: [{ configMapRef: { name: 'config-abc' } }],
            env: [
              { name: 'NATS_URL', ...secret('NATS_URL') },
              { name: 'CONTEXT_SIGNING_KEY', ...secret('CONTEXT_SIGNING_KEY') },
              { name: 'NATS_USER', value: name },
              { name: 'NATS_PASSWORD', valueFrom: { secretKeyRef: { name: NATS_SECRET, key: natsPasswordVariable(name) } } },
              ...(database ? [{ name: 'DATABASE_URL', ...secret(`${name}_DATABASE_URL`) }] : [])],
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
            livenessProbe: { httpGet: { path: '/healthz', port: port.name } },
            readinessProbe: { httpGet: { path: '/readyz', port: port.name } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
            volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
          }],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  });
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'config-abc', namespace: NAMESPACE }, data: { HOST: '0.0.0.0', PORT: '3000', HEALTH_PORT: '9000', LOG_LEVEL: 'info' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: NATS_AUTHORIZATION, namespace: NAMESPACE }, data: { 'authorization.conf': SELF_TEST_AUTHORIZATION } },
    deployment('gateway', { name: 'http', number: 3000 }, { database: false, replicas: 2 }),
    deployment('identity', { name: 'health', number: 9000 }),
    deployment('jobs-worker', { name: 'health', number: 9000 }, { replicas: null }),
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gateway', namespace: NAMESPACE }, spec: { selector: { 'app.kubernetes.io/name': 'gateway' }, ports: [{ port: 80, targetPort: 'http' }] } },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'gateway', namespace: NAMESPACE }, spec: { maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } } },
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'jobs-worker', namespace: NAMESPACE },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'jobs-worker' }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] },
    },
  ];
}

const find = (objects, kind, name) => objects.find((object) => object.kind === kind && object.metadata.name === name);
const container = (objects, name) => find(objects, 'Deployment', name).spec.template.spec.containers[0];

/** Each case: a description, a change to the good set, and a phrase the rejection must contain. */
const BAD_CASES = [
  ['probe port name typo', (o) => (container(o, 'identity').livenessProbe.httpGet.port = 'helth'), 'names no container port'],
  ['Deployment without containers', (o) => delete find(o, 'Deployment', 'identity').spec.template.spec.containers, 'must have required property'],
  ['containerPort as a string', (o) => (container(o, 'identity').ports[0].containerPort = '9000'), 'must be integer'],
  ['replicas not a number', (o) => (find(o, 'Deployment', 'gateway').spec.replicas = 'two'), 'schema'],
  ['unknown kind', (o) => o.push({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: NAMESPACE } }), 'unknown kind'],
  ['no resource limits', (o) => delete container(o, 'identity').resources.limits, 'limits.cpu missing'],
  ['request above limit', (o) => (container(o, 'identity').resources.requests.memory = '1Gi'), 'exceeds its limit'],
  ['no readiness probe', (o) => delete container(o, 'gateway').readinessProbe, 'readinessProbe missing'],
  ['no liveness probe', (o) => delete container(o, 'identity').livenessProbe, 'livenessProbe missing'],
  ['probe on a port the config does not open', (o) => { container(o, 'identity').ports[0].containerPort = 9001; }, 'HEALTH_PORT is 9000'],
  ['runAsNonRoot missing', (o) => delete find(o, 'Deployment', 'identity').spec.template.spec.securityContext.runAsNonRoot, 'runAsNonRoot must be true'],
  ['writable root filesystem', (o) => (container(o, 'identity').securityContext.readOnlyRootFilesystem = false), 'readOnlyRootFilesystem'],
  ['read-only root without /tmp', (o) => delete container(o, 'identity').volumeMounts, 'emptyDir on /tmp'],
  ['no terminationGracePeriodSeconds', (o) => delete find(o, 'Deployment', 'identity').spec.template.spec.terminationGracePeriodSeconds, 'terminationGracePeriodSeconds'],
  ['missing part-of label', (o) => delete find(o, 'Deployment', 'identity').spec.template.metadata.labels['app.kubernetes.io/part-of'], 'part-of'],
  ['deployable without a Deployment', (o) => o.splice(o.indexOf(find(o, 'Deployment', 'identity')), 1), '"identity" has no Deployment'],
  ['all-in-one deployed', (o) => { const aio = structuredClone(find(o, 'Deployment', 'identity')); aio.metadata.name = 'all-in-one'; o.push(aio); }, 'not Kubernetes'],
  ['jobs-worker without HPA', (o) => o.splice(o.indexOf(find(o, 'HorizontalPodAutoscaler', 'jobs-worker')), 1), 'needs a HorizontalPodAutoscaler'],
  ['replicas beside the HPA', (o) => (find(o, 'Deployment', 'jobs-worker').spec.replicas = 3), 'autoscaler owns the count'],
  ['HPA on a missing Deployment', (o) => (find(o, 'HorizontalPodAutoscaler', 'jobs-worker').spec.scaleTargetRef.name = 'jobs-wroker'), 'not a Deployment here'],
  ['latest image in an overlay', (o) => (container(o, 'identity').image = 'learning-service/identity:latest'), 'not pinned'],
  ['image of another deployable', (o) => (container(o, 'identity').image = 'registry.example.com/learning-service/catalog:1.0.0'), 'is not the identity image'],
  ['env name typo', (o) => container(o, 'identity').env.push({ name: 'NATS_UR', value: 'x' }), 'NATS_UR is not read'],
  ['secret as a plain value', (o) => (container(o, 'identity').env[4] = { name: 'DATABASE_URL', value: 'postgres://u:p@db/x' }), 'plain value'],
  ['service without DATABASE_URL', (o) => container(o, 'identity').env.splice(4, 1), 'DATABASE_URL missing'],
  ['NATS user of another deployable', (o) => (container(o, 'identity').env[2].value = 'gateway'), 'NATS_USER must be "identity"'],
  ['no NATS user', (o) => container(o, 'gateway').env.splice(2, 1), 'NATS_USER must be "gateway"'],
  ['NATS password of another deployable', (o) => (container(o, 'identity').env[3].valueFrom.secretKeyRef.key = 'NATS_PASSWORD_GATEWAY'), 'key NATS_PASSWORD_IDENTITY'],
  ['NATS password as a plain value', (o) => (container(o, 'identity').env[3] = { name: 'NATS_PASSWORD', value: 'pw' }), 'NATS_PASSWORD is a plain value'],
  ['no NATS authorization', (o) => o.splice(o.indexOf(find(o, 'ConfigMap', NATS_AUTHORIZATION)), 1), `ConfigMap/${NATS_AUTHORIZATION} missing`],
  ['NATS authorization edited by hand', (o) => (find(o, 'ConfigMap', NATS_AUTHORIZATION).data['authorization.conf'] += '# more\n'), 'not what tools/nats-authorization.mjs renders'],
  ['no CONTEXT_SIGNING_KEY', (o) => container(o, 'gateway').env.splice(1, 1), 'CONTEXT_SIGNING_KEY missing'],
  ['CONTEXT_SIGNING_KEY as a plain value', (o) => (container(o, 'identity').env[1] = { name: 'CONTEXT_SIGNING_KEY', value: 'k'.repeat(32) }), 'CONTEXT_SIGNING_KEY is a plain value'],
  ['missing ConfigMap', (o) => (container(o, 'identity').envFrom[0].configMapRef.name = 'config-old'), 'not in the manifests'],
  ['Service targetPort typo', (o) => (find(o, 'Service', 'gateway').spec.ports[0].targetPort = 'htp'), 'targetPort htp'],
  ['gateway without PodDisruptionBudget', (o) => o.splice(o.indexOf(find(o, 'PodDisruptionBudget', 'gateway')), 1), 'needs a PodDisruptionBudget'],
  ['wrong namespace', (o) => (find(o, 'Deployment', 'identity').metadata.namespace = 'default'), 'instead of learning-service'],
  ['object defined twice', (o) => o.push(structuredClone(find(o, 'Service', 'gateway'))), 'defined twice'],
  ['a setting given to no Deployment', (o) => delete find(o, 'ConfigMap', 'config-abc').data.LOG_LEVEL, 'setting LOG_LEVEL is read by the code but given to no Deployment'],
];

const goodScaledObject = () => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 'jobs-worker', namespace: NAMESPACE },
  spec: {
    scaleTargetRef: { name: 'jobs-worker' },
    minReplicaCount: 0,
    triggers: [
      ...WORKER_CONSUMERS.map((consumer) => ({ type: 'nats-jetstream', metadata: { natsServerMonitoringEndpoint: NATS_MONITORING_ENDPOINT, account: '$G', stream: JOBS_STREAM, consumer, lagThreshold: '1' } })),
      { type: 'cron', metadata: { timezone: 'Etc/UTC', start: '0 * * * *', end: '10 * * * *', desiredReplicas: '1' } },
    ],
  },
});
const scaledObject = (objects) => find(objects, 'ScaledObject', 'jobs-worker');
const KEDA_BAD_CASES = [
  ['ScaledObject on a missing Deployment', (o) => (scaledObject(o).spec.scaleTargetRef.name = 'jobs'), 'ScaledObject/jobs-worker: scales'],
  ['ScaledObject without triggers (KEDA schema)', (o) => delete scaledObject(o).spec.triggers, 'schema'],
  ['trigger metadata not a string (KEDA schema)', (o) => (scaledObject(o).spec.triggers[0].metadata.lagThreshold = 1), 'schema'],
  ['another consumer', (o) => (scaledObject(o).spec.triggers[0].metadata.consumer = 'jobs'), 'must watch stream'],
  ['another NATS', (o) => (scaledObject(o).spec.triggers[0].metadata.natsServerMonitoringEndpoint = 'nats:8222'), 'natsServerMonitoringEndpoint'],
  ['no trigger on the notifications queue', (o) => scaledObject(o).spec.triggers.splice(1, 1), `no trigger on consumer ${NOTIFICATIONS_CONSUMER}`],
  ['scaled to zero without a cron trigger', (o) => scaledObject(o).spec.triggers.pop(), 'needs a cron trigger'],
];

const INFRASTRUCTURE = 'k8s/overlays/infrastructure';
const ROLES_SQL = path.join(ROOT, 'k8s/base/postgres/roles.sql');
const natsOf = (objects) => find(objects, 'StatefulSet', 'nats');
const natsConfOf = (objects) => objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('nats-config')).data;
const clusterOf = (objects) => find(objects, 'Cluster', 'postgres');
const INFRA_BAD_CASES = [
  ['one NATS node', (o) => (natsOf(o).spec.replicas = 1), 'needs 3 replicas'],
  ['JetStream without a volume', (o) => delete natsOf(o).spec.volumeClaimTemplates, 'volume claim template'],
  ['JetStream files off the volume', (o) => (natsConfOf(o)['nats.conf'] = natsConfOf(o)['nats.conf'].replace(/store_dir: \S+/, 'store_dir: /tmp/js')), 'store_dir must be on the data volume'],
  ['NATS without the deployables\' users', (o) => (natsConfOf(o)['nats.conf'] = natsConfOf(o)['nats.conf'].replace(/include .*/, '')), 'must include the mounted ConfigMap'],
  ['NATS without the passwords', (o) => delete natsOf(o).spec.template.spec.containers[0].envFrom, 'needs the passwords'],
  ['no monitoring port', (o) => find(o, 'Service', 'nats').spec.ports.pop(), 'monitoring (8222)'],
  ['instances not a number (CloudNativePG schema)', (o) => (clusterOf(o).spec.instances = 'three'), 'schema'],
  ['one Postgres instance', (o) => (clusterOf(o).spec.instances = 1), 'needs 3 instances'],
  ['no WAL archiving', (o) => delete clusterOf(o).spec.backup, 'continuous backup'],
  ['no scheduled backup', (o) => o.splice(o.indexOf(find(o, 'ScheduledBackup', 'postgres-daily')), 1), 'needs a ScheduledBackup'],
  ['roles.sql not run', (o) => delete clusterOf(o).spec.bootstrap, 'must run k8s/base/postgres/roles.sql'],
  ['a service without its role', (o) => clusterOf(o).spec.managed.roles.pop(), 'managed role lms_locking'],
];

export async function selfTest() {
  const failures = [];
  const options = { deployables: SELF_TEST_APPS, configVars: SELF_TEST_VARS, allowLatest: false, natsAuthorization: SELF_TEST_AUTHORIZATION };
  const good = await validateObjects(goodObjects(), options);
  if (good.problems.length > 0) failures.push(`the good manifests were rejected: ${good.problems.join('; ')}`);
  for (const [description, change, expected] of BAD_CASES) {
    const objects = goodObjects();
    change(objects);
    const { problems } = await validateObjects(objects, options);
    if (!problems.some((problem) => problem.includes(expected))) {
      failures.push(`case "${description}" was not rejected with "${expected}" (got: ${problems.join('; ') || 'no problems'})`);
    }
  }
  for (const [description, change, expected] of KEDA_BAD_CASES) {
    const objects = goodObjects().filter((object) => object.kind !== 'HorizontalPodAutoscaler');
    objects.push(goodScaledObject());
    change(objects);
    const { problems } = await validateObjects(objects, options);
    if (!problems.some((problem) => problem.includes(expected))) failures.push(`KEDA case "${description}" was not rejected with "${expected}" (got: ${problems.join('; ') || 'no problems'})`);
  }
  // The infrastructure: the real overlay passes, and each bad variant of it is rejected.
  const infrastructure = render(INFRASTRUCTURE);
  const infraOptions = { natsAuthorization: renderAuthorization(''), rolesSql: readFileSync(ROLES_SQL, 'utf8'), services: rolesServices(readFileSync(ROLES_SQL, 'utf8')) };
  const goodInfra = await validateInfrastructure(infrastructure, infraOptions);
  if (goodInfra.problems.length > 0) failures.push(`the infrastructure overlay was rejected: ${goodInfra.problems.join('; ')}`);
  for (const [description, change, expected] of INFRA_BAD_CASES) {
    const objects = structuredClone(infrastructure);
    change(objects);
    const { problems } = await validateInfrastructure(objects, infraOptions);
    if (!problems.some((problem) => problem.includes(expected))) failures.push(`infrastructure case "${description}" was not rejected with "${expected}" (got: ${problems.join('; ') || 'no problems'})`);
  }
  return { failures, cases: BAD_CASES.length + KEDA_BAD_CASES.length + INFRA_BAD_CASES.length + 2 };
}

async function main(argv) {
  if (argv.includes('--self-test')) {
    const { failures, cases } = await selfTest();
    for (const failure of failures) console.error(`  FAIL ${failure}`);
    console.log(`validate-k8s self-test: ${cases - failures.length}/${cases} cases behaved as expected`);
    return failures.length === 0 ? 0 : 1;
  }
  const dirs = argv.filter((arg) => !arg.startsWith('--'));
  const targets = dirs.length > 0
    ? dirs.map((dir) => {
      // A copy of k8s/ elsewhere keeps the settings of the target it mirrors (base, overlays/<name>).
      const known = TARGETS.find((target) => `${path.resolve(dir)}/`.endsWith(`/${target.dir.replace(/^k8s\//, '')}/`));
      return { allowLatest: false, ...known, dir: path.resolve(dir) };
    })
    : TARGETS;
  const deployables = listDeployables();
  const configVars = configEnvVars();
  let total = 0;
  const summaries = [];
  for (const target of targets) {
    let objects;
    try {
      objects = render(target.dir);
    } catch (error) {
      console.error(`${target.dir}: ${error.message}`);
      total += 1;
      summaries.push(`${target.dir} not rendered`);
      continue;
    }
    const namespace = objects.find((object) => object.kind === 'ConfigMap' && object.metadata?.name?.startsWith('learning-service-config'))?.data?.NATS_NAMESPACE ?? '';
    const natsAuthorization = renderAuthorization(namespace);
    const rolesSql = readFileSync(ROLES_SQL, 'utf8');
    const { problems, counts } = target.infrastructure
      ? await validateInfrastructure(objects, { natsAuthorization, rolesSql, services: rolesServices(rolesSql) })
      : await validateObjects(objects, { deployables, configVars, allowLatest: target.allowLatest, natsAuthorization });
    for (const problem of problems) console.error(`${target.dir}: ${problem}`);
    total += problems.length;
    const deployments = counts.deployments === undefined ? '' : `, ${counts.deployments} Deployments`;
    summaries.push(`${target.dir} ${problems.length === 0 ? 'OK' : `${problems.length} problem(s)`} (${counts.objects} objects${deployments})`);
  }
  console.log(`validate-k8s: ${total === 0 ? 'passed' : 'FAILED'}: ${summaries.join('; ')}`);
  return total === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
