import type { IncomingMessage } from 'node:http';

export type Body =
  | { readonly ok: true; readonly json: unknown }
  | { readonly ok: false; readonly status: number; readonly message: string };

/**
 * Reads a request body of at most `maxBytes` and parses it as JSON, with at most `maxBatch` messages in a batch
 * (bounded by decoded elements, not only bytes).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, maxBatch: number): Promise<Body> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.destroy();
      return tooLarge(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not valid JSON' };
  }
  if (Array.isArray(json) && json.length > maxBatch) {
    return {
      ok: false,
      status: 400,
      message: `Invalid Request: a batch may hold at most ${maxBatch} messages`,
    };
  }
  return { ok: true, json };
}

const tooLarge = (maxBytes: number): Body => ({
  ok: false,
  status: 413,
  message: `Payload Too Large: the body is larger than ${maxBytes} bytes`,
});
