import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { parseAllDocuments } from 'yaml';
import type { CloudEvent } from '@lms/contracts';
import { createBus, createLogger, loadConfig, NatsBus, natsPasswordVariable, natsUsers, type MessageBus } from '@lms/platform';
import { freePortBlock, NATS_SERVER_BIN, natsServerAvailable, portTaken } from '@lms/testing';

/**
 * The NATS of k8s/overlays/infrastructure, run for real: the rendered nats.conf and the deployables'
 * authorization.conf, as shipped, on three local nodes (only addresses and folders change, since pod DNS
 * names do not resolve here). Events written with NATS_STREAM_REPLICAS=3 survive the loss of a node.
 */
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const describeWithCluster = natsServerAvailable() && kubectl ? describe : describe.skip;


function renderedConfig(): { natsConf: string; authorization: string } {
  const rendered = spawnSync('kubectl', ['kustomize', 'k8s/overlays/infrastructure'], { encoding: 'utf8' });
  if (rendered.status !== 0) throw new Error(rendered.stderr);
  const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string> });
  const configMap = (prefix: string) => objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(prefix))?.data ?? {};
  return { natsConf: configMap('nats-config')['nats.conf'], authorization: configMap('learning-service-nats-authorization')['authorization.conf'] };
}

const passwords = Object.fromEntries(natsUsers('').map((u) => [natsPasswordVariable(u.user), `p${randomBytes(12).toString('hex')}`]));
const passwordOf = (user: string) => passwords[natsPasswordVariable(user)];

const event = (n: number): CloudEvent => ({
  specversion: '1.0',
  id: randomUUID(),
  source: '/catalog',
  type: 'catalog.infrastructure.checked',
  time: new Date().toISOString(),
  datacontenttype: 'application/json',
  accountid: 1,
  data: { n },
});

/** Retries what a leaderless moment of the cluster refuses, for as long as an election may take. */
async function retried<T>(attempt: () => Promise<T>, deadline = Date.now() + 30_000): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

describeWithCluster('the NATS of the infrastructure overlay', () => {
  const { natsConf, authorization } = renderedConfig();
  const home = mkdtempSync(join(tmpdir(), 'lms-nats-cluster-'));
  const nodes: { dir: string; client: number; cluster: number; monitor: number; process?: ChildProcess }[] = [0, 1, 2].map((i) => ({
    dir: join(home, `nats-${i}`),
    // Set in beforeAll: three nodes' client, cluster and monitoring ports, below the ephemeral range.
    client: 0,
    cluster: 0,
    monitor: 0,
  }));
  const buses: MessageBus[] = [];

  /** The shipped file with local addresses and folders: everything else (JetStream, users, lame duck) as deployed. */
  const localConf = (node: (typeof nodes)[number]) =>
    natsConf
      .replace(/^listen: .*$/m, `listen: 127.0.0.1:${node.client}`)
      .replace(/^http: .*$/m, `http: 127.0.0.1:${node.monitor}`)
      .replace(/^pid_file: .*$/m, `pid_file: ${join(node.dir, 'nats.pid')}`)
      .replace(/store_dir: .*$/m, `store_dir: ${join(node.dir, 'jetstream')}`)
      .replace(/listen: 0\.0\.0\.0:6222/, `listen: 127.0.0.1:${node.cluster}`)
      .replace(/routes: \[[^\]]*\]/, `routes: [\n${nodes.map((n) => `    nats://127.0.0.1:${n.cluster}`).join('\n')}\n  ]`);

  const start = (node: (typeof nodes)[number], i: number) => {
    node.process = spawn(NATS_SERVER_BIN, ['-c', join(node.dir, 'nats.conf')], { env: { PATH: process.env.PATH ?? '', POD_NAME: `nats-${i}`, ...passwords }, stdio: ['ignore', 'ignore', openSync(join(node.dir, 'nats.log'), 'a')] });
  };

  beforeAll(async () => {
    // Ports under Linux's ephemeral range: a fixed range inside it (34000+) was sometimes the local port of
    // one of the suite's own connections, and a node that cannot bind never joins (the cluster "did not form").
    const base = await freePortBlock(9);
    nodes.forEach((node, i) => Object.assign(node, { client: base + i, cluster: base + 3 + i, monitor: base + 6 + i }));
    for (const node of nodes) {
      mkdirSync(join(node.dir, 'learning-service'), { recursive: true });
      writeFileSync(join(node.dir, 'nats.conf'), localConf(node));
      writeFileSync(join(node.dir, 'learning-service', 'authorization.conf'), authorization);
    }
    nodes.forEach(start);
    // Ready when every node knows the JetStream meta leader: before that, stream requests go unanswered.
    const leader = (node: (typeof nodes)[number]) =>
      fetch(`http://127.0.0.1:${node.monitor}/jsz`).then(async (r) => ((await r.json()) as { meta_cluster?: { leader?: string } }).meta_cluster?.leader, () => undefined);
    const deadline = Date.now() + 30_000;
    for (const node of nodes) {
      while (!(await leader(node))) {
        if (Date.now() > deadline) throw new Error('the NATS cluster did not form');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close().catch(() => undefined)));
    for (const node of nodes) node.process?.kill('SIGKILL');
    if (process.env.KEEP_NATS_HOME) console.log(home); else rmSync(home, { recursive: true, force: true });
  });

  it('accepts the shipped configuration, and refuses it without the deployables\' passwords', () => {
    const node = nodes[0];
    const test = (env: Record<string, string>) => spawnSync(NATS_SERVER_BIN, ['-c', join(node.dir, 'nats.conf'), '-t'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    expect(test({ POD_NAME: 'nats-0', ...passwords }).status).toBe(0);
    expect(test({ POD_NAME: 'nats-0' }).status).not.toBe(0);
  });

  it('keeps three copies of the event log, which lose nothing when a node dies', async () => {
    const connect = async (user: string, node: (typeof nodes)[number]) => {
      const config = loadConfig({
        // One address, as in Kubernetes (the Service, which routes to a live pod): the client learns the
        // other nodes from the server.
        NATS_URL: `nats://127.0.0.1:${node.client}`,
        NATS_USER: user,
        NATS_PASSWORD: passwordOf(user),
        NATS_STREAM_REPLICAS: '3',
        DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
        CONTEXT_SIGNING_KEY: 'k'.repeat(32),
      });
      const bus = await createBus(config, user, createLogger('silent'));
      buses.push(bus);
      return bus;
    };
    const catalog = await connect('catalog', nodes[0]);
    await catalog.events.ensureStreams();
    const info = await (await jetstreamManager((catalog as NatsBus).connection)).streams.info('EVENTS');
    expect(info.config.num_replicas).toBe(3);

    await catalog.events.publish(event(1));
    // The node that leads the stream goes (the worst pod to lose): the two others elect a new leader and
    // keep both events. Until they have, requests time out, and the outbox relay retries as this does.
    const lost = nodes.findIndex((_, i) => `nats-${i}` === info.cluster?.leader);
    expect(lost).toBeGreaterThanOrEqual(0);
    nodes[lost].process?.kill('SIGKILL');
    await retried(() => catalog.events.publish(event(2)));

    const identity = await connect('identity', nodes[(lost + 1) % nodes.length]);
    const seen: number[] = [];
    const sub = await retried(() =>
      identity.events.consume({ durable: 'identity-infrastructure-check', types: ['catalog.infrastructure.checked'], maxDeliver: 3, backoffMs: [100], ackWaitMs: 5_000 }, async (e) => {
        seen.push((e.data as { n: number }).n);
      }),
    );
    // A pull that went out while the consumer had no leader is answered by no one: the client notices
    // the missing heartbeats and pulls again, which can take half a minute after an election.
    const deadline = Date.now() + 60_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await sub.unsubscribe();
    expect(seen.sort()).toEqual([1, 2]);
    expect(await portTaken(nodes[lost].client)).toBe(false);
  }, 120_000);
});
