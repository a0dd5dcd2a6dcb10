import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { AskEvent } from './askingStdio.js';

/**
 * What the `input_required` tests of `wrap`/`connect` and of the gateway share: real SDK v2 hosts pinned to
 * 2026-07-28 (however connected) against 2025-era upstreams whose tools ask the client during the call.
 */

/** An `input_required` result as a host in the SDK v2's manual mode receives it. */
export type Round = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };

export const ACCEPT = { action: 'accept', content: { ok: true } };

/** The upstream's events (its own log) of one tool. */
export const of = (events: AskEvent[], tool: string) =>
  events.filter((e) => e.tool === tool).map((e) => e.event);
export const text = (result: CallToolResult) => JSON.stringify(result.content);

/** A `tools/call` in the SDK v2's manual mode: an `input_required` result is handed back, not fulfilled. */
export const manual = (host: Client, params: Record<string, unknown>) =>
  host.request(
    { method: 'tools/call', params } as never,
    { allowInputRequired: true } as never,
  ) as Promise<unknown>;

/** The manual host's repeat of `round`: `response` answers its one request. */
export const repeat = (
  host: Client,
  tool: string,
  round: Round,
  response: unknown = ACCEPT,
  args: Record<string, unknown> = {},
) =>
  manual(host, {
    name: tool,
    arguments: args,
    inputResponses: { [Object.keys(round.inputRequests)[0] as string]: response },
    requestState: round.requestState,
  });

/** Answers every elicitation of `host` with `content` (the SDK answers the round and repeats by itself). */
export function answerElicitations(host: Client, content: Record<string, boolean> = { ok: true }): unknown[] {
  const asked: unknown[] = [];
  host.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'accept', content };
  });
  return asked;
}

/** `confirm` of an asking upstream completes through one round, on one upstream call (`events`: its log). */
export async function expectElicitationCrosses(host: Client, events: () => AskEvent[]): Promise<void> {
  const asked = answerElicitations(host);
  const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(text(result)).toContain('answer: {\\"action\\":\\"accept\\",\\"content\\":{\\"ok\\":true}}');
  expect(asked).toEqual([expect.objectContaining({ message: 'Proceed?' })]);
  // One upstream call, answered: the repeat did not start another.
  expect(of(events(), 'confirm')).toEqual(['called', 'answered']);
}

/** `ask_model` of an asking upstream completes through one sampling round, on one upstream call. */
export async function expectSamplingCrosses(host: Client, events: () => AskEvent[]): Promise<void> {
  host.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'hello' },
    model: 'test-model',
  }));
  const result = (await host.callTool({ name: 'ask_model', arguments: {} })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(text(result)).toContain('hello');
  expect(of(events(), 'ask_model')).toEqual(['called', 'answered']);
}

/**
 * `@modelcontextprotocol/server-everything`'s `trigger-sampling-request` and `trigger-elicitation-request`
 * complete through the host's rounds (the host declares `sampling` and `elicitation`).
 */
export async function expectEverythingRounds(host: Client): Promise<void> {
  const sampled: unknown[] = [];
  host.setRequestHandler('sampling/createMessage', async (request) => {
    sampled.push(request.params.messages);
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled!' } };
  });
  host.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  const tools = (await host.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request']));
  const sample = (await host.callTool({
    name: 'trigger-sampling-request',
    arguments: { prompt: 'say hi', maxTokens: 10 },
  })) as CallToolResult;
  expect(text(sample)).toContain('sampled!');
  expect(sampled).toHaveLength(1);
  const elicit = (await host.callTool({
    name: 'trigger-elicitation-request',
    arguments: {},
  })) as CallToolResult;
  expect(text(elicit)).toContain('Ada');
}
