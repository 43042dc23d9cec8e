import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * Deletes the JetStream streams a test system made in its namespace (those whose subjects live under
 * `<namespace>.`, and the object store bucket of its files), so runs on a shared NATS server leave nothing behind.
 */
export async function deleteNamespaceStreams(natsUrl: string, namespace: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    // Collect first: deleting while the paged listing runs would skip streams.
    const doomed: string[] = [];
    for await (const stream of jsm.streams.list()) {
      // The file buckets (platform's filesBucket; the testing lib does not depend on the platform).
      const prefix = `OBJ_${namespace.toUpperCase().replace(/[^A-Z0-9_-]/g, '_')}_`;
      const files = stream.config.name === `${prefix}FILES` || stream.config.name === `${prefix}UPLOADS`;
      if (files || stream.config.subjects?.some((subject) => subject.startsWith(`${namespace}.`))) doomed.push(stream.config.name);
    }
    for (const name of doomed) await jsm.streams.delete(name);
    return doomed.length;
  } finally {
    await nc.close();
  }
}
