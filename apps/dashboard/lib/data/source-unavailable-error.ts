/**
 * The data source's backend cannot answer (Prometheus unreachable or timing out, the embedded store busy):
 * backend-neutral, so the HTTP layer and the pages can say "source unavailable" without knowing which backend
 * runs. `kind` says why; `timeout` is a gateway timeout, the others a bad gateway / unavailable.
 */
export class SourceUnavailableError extends Error {
  override readonly name: string = 'SourceUnavailableError';
  constructor(
    readonly source: 'embedded' | 'prometheus',
    readonly kind: 'unreachable' | 'timeout' | 'http' | 'api' | 'invalid_response' | 'busy',
    message: string,
  ) {
    super(message);
  }
}
