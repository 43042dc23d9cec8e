import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768-60999): a port the kernel hands to an outgoing connection can
// never be one of these, so a child told to bind it a moment later finds it free.
const LOW = 10_000;
const HIGH = 32_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` consecutive loopback ports that are free now, for child processes that must be told their port. */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = LOW + Math.floor(Math.random() * (HIGH - LOW - count));
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => isFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no block of ${count} free ports found between ${LOW} and ${HIGH}`);
}
