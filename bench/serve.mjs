// What the bench's own servers (the raw baseline, the bare path) share: connections kept alive as long as the
// load keeps its sockets, and a stop on SIGTERM or SIGINT that ends every connection, then releases what the
// server holds (its pool, its NATS connection) before exiting.

/** Listens on loopback `port` until the process is told to stop; `release` runs after the server closes. */
export function serveUntilStopped(server, port, release) {
  server.keepAliveTimeout = 30_000;
  server.listen(port, '127.0.0.1');
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void release().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
