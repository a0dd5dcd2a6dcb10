import { createGunzip, createInflate } from 'node:zlib';
import { OtlpLimitError } from './element-budget';
import type { CountedBody, ElementScanner } from './element-scanner';
import { OtlpDecodeError } from './model';

/** Bytes decompressed per step (zlib's output chunk): the scanner sees the body this many bytes at a time. */
const CHUNK = 64 * 1024;

/** The content-encodings a body may have. */
export type ContentEncoding = '' | 'identity' | 'gzip' | 'x-gzip' | 'deflate';

/**
 * A request body decompressed and counted at once: each decompressed chunk goes through `scanner` before the
 * next is made, so 20 KB of gzip that decode to 10 million empty points stop at the first point beyond the
 * budget, after a few hundred kilobytes, not after 20 MB (and the decompression runs on zlib's thread, between
 * other requests). Beyond `maxBytes` decompressed: `OtlpLimitError` (413). A body that is not valid for its
 * encoding: `OtlpDecodeError` (400).
 */
export function decompressCounted(
  raw: Buffer,
  contentEncoding: ContentEncoding,
  scanner: ElementScanner,
  maxBytes: number,
): Promise<CountedBody> {
  if (contentEncoding === '' || contentEncoding === 'identity') {
    try {
      scanner.finish(raw, raw.length);
      return Promise.resolve({ counted: raw });
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return new Promise((resolve, reject) => {
    const zlib =
      contentEncoding === 'deflate'
        ? createInflate({ chunkSize: CHUNK })
        : createGunzip({ chunkSize: CHUNK });
    let buf = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(CHUNK, raw.length * 4)));
    let n = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      zlib.destroy();
      reject(error);
    };
    zlib.on('data', (chunk: Buffer) => {
      if (failed) return;
      if (n + chunk.length > maxBytes) {
        fail(new OtlpLimitError(`body larger than ${maxBytes} bytes (after decompression)`));
        return;
      }
      if (n + chunk.length > buf.length) {
        const larger = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(buf.length * 2, n + chunk.length)));
        buf.copy(larger, 0, 0, n);
        buf = larger;
      }
      chunk.copy(buf, n);
      n += chunk.length;
      try {
        scanner.feed(buf, n);
      } catch (error) {
        fail(error);
      }
    });
    zlib.on('error', () => fail(new OtlpDecodeError(`invalid ${contentEncoding} body`)));
    zlib.on('end', () => {
      if (failed) return;
      try {
        scanner.finish(buf, n);
        resolve({ counted: buf.subarray(0, n) });
      } catch (error) {
        fail(error);
      }
    });
    zlib.end(raw);
  });
}
