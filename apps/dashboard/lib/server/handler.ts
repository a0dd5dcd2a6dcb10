import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadError, parseAlertmanagerPayload } from '../alerts/alertmanager';
import { RuleValidationError, ruleEdit, validateRule } from '../alerts/rule';
import {
  ParamError,
  parseInstancesParams,
  parseSummaryParams,
  parseTransitionsParams,
} from '../data/query-params';
import type { TimeQuery } from '../data/types';
import type { OtlpHttpRequest } from '../otlp/receiver';
import type { Runtime } from '../runtime';
import { SourceUnavailableError } from '../source-unavailable';
import { type Auth, createAuth, safeEqual } from './auth';
import { createHostCheck } from './host-check';
import { sameOriginPath } from './redirect';
import { serveLive } from './sse';

export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

const MAX_JSON_BODY = 1024 * 1024;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BODY) throw new PayloadError('body', `body larger than ${MAX_JSON_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new PayloadError('body', 'body is not valid JSON');
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

function otlpRequest(req: IncomingMessage): OtlpHttpRequest {
  const length = header(req, 'content-length');
  return {
    method: req.method ?? 'GET',
    contentType: header(req, 'content-type'),
    contentEncoding: header(req, 'content-encoding'),
    contentLength: length === undefined ? undefined : Number(length),
    authorization: header(req, 'authorization'),
    client: req.socket.remoteAddress ?? 'unknown',
    body: req,
  };
}

/**
 * `POST /api/alerts/webhook` (Alertmanager's webhook receiver): `application/json` only (a cross-site form or
 * `text/plain` POST is refused), and the ingest token whenever INGEST_TOKEN is set (else the dashboard's own
 * credentials when it has some).
 */
async function alertmanagerWebhook(req: IncomingMessage, res: ServerResponse, rt: Runtime, auth: Auth) {
  if (req.method !== 'POST')
    return json(res, 405, { error: 'use POST' }, { allow: 'POST', connection: 'close' });
  const ingestToken = rt.config.ingestToken;
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1]?.trim();
  const allowed =
    ingestToken !== undefined
      ? safeEqual(bearer, ingestToken)
      : auth.check({ authorization: header(req, 'authorization'), cookie: header(req, 'cookie') });
  if (!allowed) {
    return json(
      res,
      401,
      {
        error:
          ingestToken !== undefined
            ? 'missing or wrong bearer token: send INGEST_TOKEN (Alertmanager: http_config.authorization.credentials)'
            : 'authentication required: the dashboard credentials (DASHBOARD_TOKEN or DASHBOARD_USER/PASSWORD)',
      },
      { 'www-authenticate': 'Bearer', connection: 'close' },
    );
  }
  const mediaType = (header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return json(res, 415, { error: 'content-type must be application/json' }, { connection: 'close' });
  }
  try {
    const alerts = parseAlertmanagerPayload(await readJson(req));
    return json(res, 200, rt.alerts.receiveAlertmanager(alerts));
  } catch (error) {
    if (error instanceof PayloadError) return json(res, 400, { error: error.message, field: error.field });
    throw error;
  }
}

/** The read-only JSON API: each endpoint validates its parameters (400 naming the bad one), then asks the source. */
const QUERIES: Record<
  string,
  {
    parse(params: URLSearchParams, now: number): TimeQuery;
    answer(rt: Runtime, q: TimeQuery): Promise<unknown>;
  }
> = {
  '/api/v1/summary': { parse: parseSummaryParams, answer: (rt, q) => rt.source.summary(q) },
  '/api/v1/instances': {
    parse: parseInstancesParams,
    answer: async (rt, q) => ({ instances: await rt.source.instances(q) }),
  },
  '/api/v1/transitions': {
    parse: parseTransitionsParams,
    answer: async (rt, q) => ({ transitions: await rt.source.transitions(q) }),
  },
};

/**
 * The dashboard's HTTP entry point: the OTLP receiver, the SSE stream and the JSON API are served here (plain
 * node:http, testable without Next), everything else goes to Next. Authentication is checked here once for
 * the UI and the API.
 */
export function createRequestListener(rt: Runtime, next?: NextHandler, auth: Auth = createAuth(rt.config)) {
  const checkHost = createHostCheck({
    publicUrl: rt.config.publicUrl,
    allowedHosts: rt.config.limits.allowedHosts,
  });
  const ingestToken = rt.config.ingestToken;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const url = new URL(req.url ?? '/', 'http://dashboard.local');
      const path = url.pathname;
      if (path === '/api/health') return json(res, 200, { ok: true });
      const machine = path === '/v1/traces' || path === '/v1/metrics' || path === '/api/alerts/webhook';
      // A request that carries a secret cannot come from a rebinding page; the rest must name this host.
      if (!(machine && ingestToken !== undefined)) {
        for (const h of [header(req, 'host'), header(req, 'x-forwarded-host')]) {
          const verdict = checkHost(h);
          if (!verdict.ok) return json(res, 403, { error: verdict.reason }, { connection: 'close' });
        }
      }
      if (path === '/v1/traces' || path === '/v1/metrics') {
        const r = await rt.receive(path === '/v1/traces' ? 'traces' : 'metrics', otlpRequest(req));
        const close = r.close === true && !req.complete;
        res.writeHead(r.status, {
          ...r.headers,
          'content-length': String(r.body.byteLength),
          ...(close ? { connection: 'close' } : {}),
        });
        // The body was not read: close the connection once answered, never read the rest.
        res.end(r.body, close ? () => req.socket.destroy() : undefined);
        return;
      }
      if (path === '/api/alerts/webhook') return await alertmanagerWebhook(req, res, rt, auth);

      const authorized = auth.check({
        authorization: header(req, 'authorization'),
        cookie: header(req, 'cookie'),
      });
      if (!authorized) {
        const token = url.searchParams.get('token') ?? undefined;
        if (req.method === 'GET' && auth.checkToken(token)) {
          url.searchParams.delete('token');
          res.writeHead(303, {
            location: sameOriginPath(url),
            'set-cookie': auth.sessionCookie(header(req, 'x-forwarded-proto') === 'https'),
          });
          res.end();
          return;
        }
        res.writeHead(401, {
          'www-authenticate': 'Basic realm="mcp-resilience dashboard", charset="UTF-8"',
          'content-type': 'text/plain; charset=utf-8',
        });
        res.end('Authentication required: a bearer token, basic auth, or ?token=<DASHBOARD_TOKEN> once.\n');
        return;
      }

      const query = QUERIES[path];
      if (query) {
        if (req.method !== 'GET') return json(res, 405, { error: 'use GET' }, { allow: 'GET' });
        let q: TimeQuery;
        try {
          q = query.parse(url.searchParams, Date.now());
        } catch (error) {
          if (error instanceof ParamError)
            return json(res, 400, { error: error.message, parameter: error.param });
          throw error;
        }
        try {
          return json(res, 200, await query.answer(rt, q));
        } catch (error) {
          // The data source's backend cannot answer: say so, as a gateway error, with its message.
          if (error instanceof SourceUnavailableError) {
            console.error(`[dashboard] ${path}: ${error.message}`);
            return json(res, error.httpStatus, { error: error.message });
          }
          throw error;
        }
      }
      if (path === '/api/live') return serveLive(req, res, url, rt);
      if (path === '/api/alerts' && req.method === 'GET') {
        return json(res, 200, {
          rules: rt.alertStore.rules(),
          instances: rt.alertStore.instances(),
          history: rt.alertStore.history(100),
        });
      }
      const ruleMatch = /^\/api\/alerts\/rules\/([A-Za-z0-9_-]+)$/.exec(path);
      if (ruleMatch) {
        const rule = rt.alertStore.rule(ruleMatch[1]!);
        if (!rule) return json(res, 404, { error: `no rule '${ruleMatch[1]}'` });
        if (req.method === 'GET') return json(res, 200, rule);
        if (req.method !== 'PUT') return json(res, 405, { error: 'use GET or PUT' }, { allow: 'GET, PUT' });
        try {
          const updated = validateRule(rule, ruleEdit(rule, await readJson(req)));
          rt.alertStore.saveRule(updated);
          void rt.alerts.evaluate();
          return json(res, 200, updated);
        } catch (error) {
          if (error instanceof RuleValidationError)
            return json(res, 400, { error: error.message, field: error.field });
          if (error instanceof PayloadError)
            return json(res, 400, { error: error.message, field: error.field });
          throw error;
        }
      }
      if (path.startsWith('/api/')) return json(res, 404, { error: `no route ${req.method} ${path}` });
      if (next) return await next(req, res);
      json(res, 404, { error: 'not found' });
    } catch (error) {
      console.error(`[dashboard] request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    }
  };
}
