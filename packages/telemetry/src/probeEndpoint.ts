import { connect } from 'node:net';

/**
 * Whether a TCP connection to the host and port of `url` opens within `timeoutMs`: `undefined` when it does, else
 * the error (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`...). Used at shutdown only, so that a final export to an
 * endpoint nobody listens on is dropped at once instead of retried by the exporter for up to its timeout.
 */
export function probeEndpoint(url: string, timeoutMs: number): Promise<Error | undefined> {
  const { hostname, port, protocol } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) || (protocol === 'https:' ? 443 : 80) });
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(error);
    };
    const timer = setTimeout(
      () => done(Object.assign(new Error(`connect ETIMEDOUT ${host}:${port}`), { code: 'ETIMEDOUT' })),
      timeoutMs,
    );
    socket.once('connect', () => done());
    socket.once('error', (error) => done(error));
  });
}
