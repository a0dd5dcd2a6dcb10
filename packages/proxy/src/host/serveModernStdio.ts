import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Upstream } from '../upstream/Upstream.js';
import { createModernHostServer } from './createModernHostServer.js';
import type { ForwardOptions } from './forwardRequest.js';
import type { HeldTransport } from './HeldTransport.js';
import type { InputRounds } from './InputRounds.js';

/** The upstream's notifications a 2026-07-28 host can receive outside a request: on `subscriptions/listen`. */
const CHANGES = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

type StdioEntryTransport = NonNullable<NonNullable<Parameters<typeof serveStdio>[1]>['transport']>;

/**
 * `wrap` and `connect` for a host that opened protocol revision 2026-07-28 over stdio: the SDK v2 stdio entry
 * (`serveStdio`, 2025-era openings refused, as the host chose the revision) with the same forwarding `Server`
 * as the gateway's hosts of that revision ({@link createModernHostServer}): `server/discover` answered with the
 * upstream's identity, capabilities and instructions, every other request through the pipeline, progress on the
 * request, the host's `notifications/cancelled` passed on. The upstream's change notifications go to the host's
 * `subscriptions/listen` streams that asked for them (the entry routes them). A 2025-era upstream's
 * server-to-client requests become `input_required` rounds of the host's calls (`rounds`, closed with it).
 */
export function serveModernStdio(
  host: HeldTransport,
  upstream: Upstream,
  options: ForwardOptions,
  rounds: InputRounds,
): { close(): Promise<void> } {
  let server: Server | undefined;
  const unwatch = upstream.watch((notification) => {
    if (server && CHANGES.has(notification.method)) {
      server.notification(notification as never).catch(() => {});
    }
  });
  const entry = serveStdio(
    () => {
      server = createModernHostServer(upstream, options, rounds);
      return server;
    },
    { legacy: 'reject', transport: host as unknown as StdioEntryTransport },
  );
  return {
    async close() {
      unwatch();
      rounds.close();
      await entry.close();
    },
  };
}
