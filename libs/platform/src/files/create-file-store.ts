import { join } from 'node:path';
import type { PlatformConfig } from '../config/config.js';
import type { MessageBus } from '../messaging/message-bus.js';
import { NatsBus } from '../messaging/nats-bus.js';
import type { FileStore } from './file-store.js';
import { FolderFileStore } from './folder-file-store.js';
import { type FileBucket, ObjectFileStore } from './object-file-store.js';

/** The object store bucket on the bus's NATS connection, or its folder (`files`, `uploads`) under DATA_DIR without NATS. */
export function createFileStore(
  config: Pick<PlatformConfig, 'dataDir' | 'natsNamespace'>,
  bus: MessageBus,
  options: { writer: boolean; bucket?: FileBucket },
): FileStore {
  const bucket = options.bucket ?? 'FILES';
  if (bus instanceof NatsBus) return new ObjectFileStore(bus.connection, config.natsNamespace, options.writer, bus.streamReplicas, bucket);
  return new FolderFileStore(join(config.dataDir, bucket.toLowerCase(), config.natsNamespace || 'default'));
}
