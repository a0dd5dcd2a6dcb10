import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAlertmanager, startAlertmanager } from './support/alertmanager.js';
import { waitFor } from './support/process.js';

// alertmanager/alertmanager.yml in a real Alertmanager 0.25 (Debian), delivering to a local webhook receiver:
// the route, the bearer token read from the credentials file, the payload and the resolution.
interface Delivery {
  path: string;
  authorization: string | undefined;
  body: {
    version: string;
    status: string;
    receiver: string;
    groupLabels: Record<string, string>;
    alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[];
  };
}

const read = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

describe('Alertmanager with alertmanager/alertmanager.yml', () => {
  const deliveries: Delivery[] = [];
  let webhook: Server;
  let alertmanager: RunningAlertmanager;

  beforeAll(async () => {
    webhook = createServer(async (req, res) => {
      const body = JSON.parse(await read(req)) as Delivery['body'];
      deliveries.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const address = webhook.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    alertmanager = await startAlertmanager({
      webhookBase: `http://127.0.0.1:${port}`,
      token: 'ingest-s3cret',
    });
  });

  afterAll(async () => {
    await alertmanager?.stop();
    await new Promise((resolve) => webhook?.close(resolve));
  });

  it('delivers a firing alert to /api/alerts/webhook with the bearer token, grouped by alertname and mcp_resilience_server', async () => {
    const labels = {
      alertname: 'RetryEfficiencyBelowTarget',
      mcp_resilience_server: 'weather',
      severity: 'warning',
    };
    await alertmanager.post([
      { labels, annotations: { summary: 'Retry efficiency for weather is 50% (target 80%)' } },
    ]);
    const delivery = await waitFor(async () => deliveries.find((d) => d.body.status === 'firing'), {
      timeoutMs: 20_000,
      describe: () => alertmanager.process.output(),
    });
    expect(delivery.path).toBe('/api/alerts/webhook');
    expect(delivery.authorization).toBe('Bearer ingest-s3cret');
    expect(delivery.body).toMatchObject({
      version: '4',
      receiver: 'dashboard',
      groupLabels: { alertname: 'RetryEfficiencyBelowTarget', mcp_resilience_server: 'weather' },
      alerts: [
        {
          status: 'firing',
          labels,
          annotations: { summary: 'Retry efficiency for weather is 50% (target 80%)' },
        },
      ],
    });
  });

  it('sends the resolution (send_resolved)', async () => {
    const labels = {
      alertname: 'RetryEfficiencyBelowTarget',
      mcp_resilience_server: 'weather',
      severity: 'warning',
    };
    await alertmanager.post([{ labels, endsAt: new Date(Date.now() - 1000).toISOString() }]);
    const delivery = await waitFor(async () => deliveries.find((d) => d.body.status === 'resolved'), {
      timeoutMs: 20_000,
      describe: () => alertmanager.process.output(),
    });
    expect(delivery.authorization).toBe('Bearer ingest-s3cret');
    expect(delivery.body.alerts).toEqual([expect.objectContaining({ status: 'resolved', labels })]);
  });
});
