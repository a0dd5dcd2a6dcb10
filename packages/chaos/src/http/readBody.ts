import type { IncomingMessage } from 'node:http';

/** The request body as text, or null when it is larger than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
