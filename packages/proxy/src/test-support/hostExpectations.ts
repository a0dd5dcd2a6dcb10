import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { waitFor } from './waitFor.js';

/** A tool call with invalid arguments for the chaos server's `search` (its `invalid_params` fault). */
export const SEARCH = { name: 'search', arguments: { query: 'mcp' } };

/** The classification the proxy puts in an `isError` result's `_meta`. */
export const classification = (result: CallToolResult) =>
  result._meta?.['io.mcp-resilience/classification'] as Record<string, unknown> | undefined;

/** Invalid arguments: one request upstream, a non-retryable `isError` result; the model's repeat is answered. */
export async function expectInvalidOnce(
  callTool: (params: typeof SEARCH) => Promise<unknown>,
  searches: () => number,
): Promise<void> {
  const first = (await callTool(SEARCH)) as CallToolResult;
  expect(first.isError).toBe(true);
  expect(classification(first)).toMatchObject({
    class: 'non_retryable',
    type: 'invalid_params',
    attempts: 1,
  });
  expect(searches()).toBe(1);
  const repeat = (await callTool(SEARCH)) as CallToolResult;
  expect(repeat.isError).toBe(true);
  expect(searches()).toBe(1);
}

interface ProgressCall {
  signal: AbortSignal;
  onprogress: (progress: { progress: number }) => void;
}
interface LogEntry {
  method?: string;
  tool?: string;
  requestId?: unknown;
}

/**
 * A long `generate_report` call: its progress reaches the host, the host cancels it after the second
 * notification, and the upstream logs `notifications/cancelled` for the same request id.
 */
export async function expectCancellationCrosses(
  callReport: (
    params: { name: string; arguments: Record<string, unknown> },
    options: ProgressCall,
  ) => Promise<unknown>,
  entries: () => readonly LogEntry[],
): Promise<void> {
  const stop = new AbortController();
  const progress: number[] = [];
  const call = callReport(
    { name: 'generate_report', arguments: { topic: 'mcp', steps: 40 } },
    {
      signal: stop.signal,
      onprogress: (p) => {
        progress.push(p.progress);
        if (progress.length === 2) stop.abort('the user pressed stop');
      },
    },
  ).catch((error: unknown) => error);
  expect(await call).toBeInstanceOf(Error);
  expect(progress.slice(0, 2)).toEqual([0, 1]);
  const cancelled = await waitFor('the upstream to log the cancellation', () =>
    entries().find((e) => e.method === 'notifications/cancelled'),
  );
  const report = entries().find((e) => e.tool === 'generate_report');
  expect(cancelled.requestId).toBe(report?.requestId);
}
