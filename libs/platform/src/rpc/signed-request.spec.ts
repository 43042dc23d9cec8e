import { createSecretKey } from 'node:crypto';
import type { MessageBus } from '../messaging/message-bus.js';
import { signedChannel, signedRequestsTo } from './signed-request.js';

describe('signedRequestsTo', () => {
  const bus = {} as MessageBus;

  it('names the 503 after the service asked, over the deployable’s key and time-out', () => {
    const options = signedRequestsTo('scheduling', signedChannel(bus, { contextSigningKey: createSecretKey(Buffer.alloc(32, 7)), rpcTimeoutMs: 1234 }));
    expect(options).toMatchObject({ bus, service: 'scheduling', unavailableCode: 'SCHEDULING_UNAVAILABLE', timeoutMs: 1234 });
    expect(options.seal).toBeDefined();
  });
});
