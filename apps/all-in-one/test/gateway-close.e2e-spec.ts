import { connect, type Socket } from 'node:net';
import { startTestSystem } from './test-system.js';

/**
 * The gateway's close ends connections that never sent a request. Node's http server closes idle
 * kept-alive connections but waits on a silent one until its headers time out (a minute), so a browser's
 * preconnect held a rolling deploy's gateway that long.
 */
describe('closing the gateway', () => {
  it('ends a connection that has sent no request, and a kept-alive one, without waiting for their timeouts', async () => {
    const t = await startTestSystem();
    const { port } = new URL(t.system.url);
    const open = async (): Promise<{ socket: Socket; closed: Promise<void> }> => {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
    };
    const silent = await open();
    const keptAlive = await open();
    keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((resolve) => keptAlive.socket.once('data', resolve));

    // The default test timeout (30 s) is under the headers timeout the close waited for.
    await t.close();
    await Promise.all([silent.closed, keptAlive.closed]);
  });
});
