import { SourceUnavailableError } from '../source-unavailable';

/*
 * A write the disk refused: full (SQLITE_FULL, ENOSPC, EDQUOT), read-only (SQLITE_READONLY*, EROFS) or failing
 * (SQLITE_IOERR*). Nothing was written (the transaction rolled back) and reads still work, so the OTLP receiver
 * answers 503 with Retry-After and this reason: exporters keep the data and retry; ingest resumes by itself
 * once the disk takes writes again.
 */

export type StorageFaultCause = 'full' | 'read_only' | 'io_error';

/** Seconds an exporter is asked to wait before retrying a write the disk refused. */
export const STORAGE_FAULT_RETRY_AFTER_SECONDS = 30;

const WHAT: Record<StorageFaultCause, string> = {
  full: 'the disk is full',
  read_only: 'the database is read-only',
  io_error: 'the disk failed to write',
};

export class StorageFaultError extends SourceUnavailableError {
  override readonly name: string = 'StorageFaultError';
  readonly retryAfterSeconds = STORAGE_FAULT_RETRY_AFTER_SECONDS;
  constructor(
    readonly fault: StorageFaultCause,
    readonly code: string,
    error: unknown,
  ) {
    super(`store cannot write: ${WHAT[fault]} (${code})`, { status: 503, cause: error });
  }
}

/** What kind of storage fault `error` is, from its SQLite or system error code (undefined: none). */
export function storageFaultOf(error: unknown): StorageFaultCause | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read_only';
  if (code.startsWith('SQLITE_IOERR')) return 'io_error';
  return undefined;
}

/** `error` as a `StorageFaultError` when it is one (else undefined). */
export function asStorageFault(error: unknown): StorageFaultError | undefined {
  const cause = storageFaultOf(error);
  if (cause === undefined) return undefined;
  return new StorageFaultError(cause, String((error as { code: string }).code), error);
}
