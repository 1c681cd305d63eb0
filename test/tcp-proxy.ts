/** A TCP proxy to a server the tests share (Redis, PostgreSQL) that can be stopped (connections
 * cut, new ones refused) and started again on the same port: "the server restarted" without
 * restarting the one other tests use. */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export async function tcpProxy(host: string, targetPort: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => undefined).on('close', () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject).listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (server) server.close(() => resolve());
      else resolve();
      server = undefined;
    });
  await start();
  return { port, start, stop };
}
