import http from 'node:http';
import type { Limits } from '../config';

/**
 * The dashboard's node:http server with every wait bounded: the headers must arrive within
 * `headersTimeoutMs`, the whole request within `requestTimeoutMs` (408 and close after; node checks every
 * `checkIntervalMs`), idle keep-alive connections close after `keepAliveTimeoutMs`. Bodies have their own
 * deadline in the OTLP receiver (`bodyTimeoutMs`). Long-lived responses (SSE) are not affected: the timeouts
 * cover receiving the request only.
 */
export function createHttpServer(
  listener: http.RequestListener,
  limits: Pick<Limits, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>,
): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
    },
    listener,
  );
  return server;
}
