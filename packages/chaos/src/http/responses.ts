import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A JSON-RPC error body as the SDK's HTTP transport sends it (`id: null`). */
export function rpcError(code: number, message: string, data?: unknown) {
  return {
    jsonrpc: '2.0',
    error: data === undefined ? { code, message } : { code, message, data },
    id: null,
  };
}

/** 404 `Session not found` (spec, TypeScript SDK) or 400 `No valid session ID provided` (server-everything). */
export function sendUnknownSession(res: ServerResponse, status: 404 | 400): void {
  if (status === 404) sendJson(res, 404, rpcError(-32001, 'Session not found'));
  else sendJson(res, 400, rpcError(-32000, 'Bad Request: No valid session ID provided'));
}

const reasons: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

/** A 5xx with the HTML page a reverse proxy (nginx) sends. */
export function sendProxyError(res: ServerResponse, status: number, retryAfter?: number): void {
  const title = `${status} ${reasons[status] ?? 'Error'}`;
  const html = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
  const headers: Record<string, string> = { 'content-type': 'text/html' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  res.writeHead(status, headers).end(html);
}

/** 401 as an OAuth-protected resource answers an expired bearer token. */
export function sendUnauthorized(res: ServerResponse): void {
  const description = 'The access token expired';
  sendJson(
    res,
    401,
    { error: 'invalid_token', error_description: description },
    { 'www-authenticate': `Bearer error="invalid_token", error_description="${description}"` },
  );
}

/** 403 as an OAuth-protected resource answers a token without the needed scope. */
export function sendForbidden(res: ServerResponse): void {
  const description = 'The token lacks the scope mcp:tools';
  sendJson(
    res,
    403,
    { error: 'insufficient_scope', error_description: description },
    {
      'www-authenticate': `Bearer error="insufficient_scope", scope="mcp:tools", error_description="${description}"`,
    },
  );
}

/** 429 with `Retry-After` (seconds) and a JSON-RPC error body carrying the same delay. */
export function sendRateLimited(res: ServerResponse, retryAfter: number): void {
  const body = rpcError(-32000, `Rate limit exceeded. Retry after ${retryAfter}s.`, { retryAfter });
  sendJson(res, 429, body, { 'retry-after': String(retryAfter) });
}
