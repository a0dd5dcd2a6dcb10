/**
 * A failure to connect the transport that `reconnect` created, before the request was sent: it is classified by
 * its `cause` (a refused connection, a 401, an `initialize` timeout), and the request certainly was not sent.
 */
export class ReconnectError extends Error {
  override readonly name = 'ReconnectError';
  constructor(cause: unknown) {
    super(`reconnecting failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
