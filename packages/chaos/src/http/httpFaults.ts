import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault } from '../plan/FaultPlan.js';
import { sendForbidden, sendProxyError, sendRateLimited, sendUnauthorized } from './responses.js';

/**
 * Answers the faults that need nothing but the HTTP exchange (`unauthorized`, `forbidden`, `rate_limit`,
 * `http_error`, `outage`, `flapping`, `reset`). Returns false for every other kind, which the caller applies.
 */
export function answerHttpFault(fault: Fault, req: IncomingMessage, res: ServerResponse): boolean {
  switch (fault.kind) {
    case 'unauthorized':
      sendUnauthorized(res);
      return true;
    case 'forbidden':
      sendForbidden(res);
      return true;
    case 'rate_limit':
      sendRateLimited(res, fault.retryAfter ?? 1);
      return true;
    case 'http_error':
      sendProxyError(res, fault.status ?? 503, fault.retryAfter);
      return true;
    case 'outage':
    case 'flapping':
      if (fault.mode === 'reset') req.socket.destroy();
      else sendProxyError(res, 503);
      return true;
    case 'reset':
      req.socket.destroy();
      return true;
    default:
      return false;
  }
}
