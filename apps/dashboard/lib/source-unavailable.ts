/*
 * The one error every data backend throws when it cannot answer now, whatever the backend: the embedded store
 * (SQLite busy or locked) or PromQL (Prometheus unreachable, timing out, answering garbage). The edges map it:
 * the JSON API to its `httpStatus` with the message, the OTLP receiver to 503 + Retry-After, pages to their
 * error state. Its message says what is unavailable and never carries credentials.
 */

/** The gateway status that says why: 503 busy (try again shortly), 504 timed out, 502 unreachable or broken. */
export type UnavailableStatus = 502 | 503 | 504;

export class SourceUnavailableError extends Error {
  override readonly name: string = 'SourceUnavailableError';
  readonly httpStatus: UnavailableStatus;
  /** Which backend could not answer. */
  readonly source: 'embedded' | 'prometheus';
  constructor(
    message: string,
    options: { status?: UnavailableStatus; cause?: unknown; source?: 'embedded' | 'prometheus' } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.httpStatus = options.status ?? 503;
    this.source = options.source ?? 'embedded';
  }
}

/** The embedded store is locked by another writer (SQLITE_BUSY): try again in a moment. */
export class StoreBusyError extends SourceUnavailableError {
  override readonly name: string = 'StoreBusyError';
  constructor(message = 'store busy', cause?: unknown) {
    super(message, { status: 503, cause });
  }
}
