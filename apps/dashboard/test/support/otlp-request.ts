import type { OtlpHttpRequest } from '@/lib/otlp/receiver';

/** A plain OTLP/JSON POST with `body` (no encoding, length or authorization), as the receiver takes it. */
export function otlpRequest(body: AsyncIterable<Uint8Array>): OtlpHttpRequest {
  return {
    method: 'POST',
    contentType: 'application/json',
    contentEncoding: undefined,
    contentLength: undefined,
    authorization: undefined,
    body,
  };
}
