import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import aiPackage from 'ai/package.json' with { type: 'json' };
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { mcpToolSet, resilientToolSet, type ToolFailureOutput } from '../../src/adapters/ai.js';
import { CLASSIFICATION_META_KEY, withResilience } from '../../src/mcp/index.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { createFakeClock } from '../../src/testing/createFakeClock.js';
import { callsOf, connectedChaos, INVALID_CALL } from './chaosServer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `ai` major this project runs the suite on (vitest.config.ts: one project per AI SDK line). */
    aiSdkMajor: number;
  }
}

/** The `ai` this run loaded: `ai` itself, or `ai-v6` when the project aliases `ai` to it. */
const aiMajor = Number(aiPackage.version.split('.')[0]);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const toolCall = (id: string): LanguageModelV3GenerateResult => ({
  content: [
    {
      type: 'tool-call',
      toolCallId: id,
      toolName: INVALID_CALL.name,
      input: JSON.stringify(INVALID_CALL.args),
    },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const answer: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'No weather for Atlantis.' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
};

/** The tool results the model was given in its last prompt message, as the AI SDK serialised them. */
function toolResultsSeen(model: MockLanguageModelV3, call: number) {
  const prompt = model.doGenerateCalls[call]?.prompt ?? [];
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.filter((part) => part.type === 'tool-result').map((part) => part.output);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe(`AI SDK ${aiMajor} adapter (ai ${aiPackage.version})`, () => {
  it('runs on the AI SDK line its project selects', () => {
    expect(aiMajor).toBe(inject('aiSdkMajor'));
  });

  it('generateText repeating an invalid MCP call: the server sees it once, the model reads the structured error', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const recorder = createMemoryRecorder();
    // A tools record whose execute calls the MCP server (plain client), made resilient by wrapping execute.
    const tools = resilientToolSet(await mcpToolSet(chaos.client), { server: 'chaos', recorder });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('c1'), toolCall('c2'), toolCall('c3'), answer],
    });

    const result = await generateText({
      model,
      tools,
      prompt: 'Weather in Atlantis?',
      stopWhen: stepCountIs(10),
    });

    expect(result.text).toBe('No weather for Atlantis.');
    expect(model.doGenerateCalls).toHaveLength(4);
    expect(callsOf(chaos.http, 'get_weather')).toBe(1);
    for (const call of [1, 2, 3]) {
      const [output] = toolResultsSeen(model, call);
      expect(output?.type).toBe('json');
      const value = (
        output as unknown as { value: { isError: boolean; content: Array<{ text: string }>; _meta: object } }
      ).value;
      expect(value.isError).toBe(true);
      expect(value.content[0]?.text).toMatch(
        /^Tool call 'get_weather' failed with a non-retryable error \(invalid_params\): .*Invalid city/,
      );
      expect(value._meta).toMatchObject({
        [CLASSIFICATION_META_KEY]: { class: 'non_retryable', type: 'invalid_params' },
      });
    }
    expect(recorder.ofType('model_retry_avoided')).toHaveLength(2);
  });

  it('mcpToolSet over a withResilience client: the client answers the repeats, the model reads its isError result', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const tools = await mcpToolSet(
      withResilience(chaos.client, { server: 'chaos', nonRetryableAs: 'result' }),
    );
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('c1'), toolCall('c2'), toolCall('c3'), answer],
    });
    await generateText({ model, tools, prompt: 'Weather in Atlantis?', stopWhen: stepCountIs(10) });
    expect(callsOf(chaos.http, 'get_weather')).toBe(1);
    const [output] = toolResultsSeen(model, 3);
    expect(JSON.stringify(output)).toMatch(/non-retryable error \(invalid_params\)/);
  });

  it('resilientToolSet: any tool; a retryable failure is retried when the tool is safe to repeat, a rejected one explained', async () => {
    let calls = 0;
    const flaky = tool({
      description: 'flaky',
      inputSchema: z.object({ q: z.string() }),
      execute: async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('HTTP 503 Service Unavailable'), { status: 503 });
        return { answer: 42 };
      },
    });
    const tools = resilientToolSet(
      { flaky },
      {
        server: 'api',
        idempotent: { flaky: true },
        clock: createFakeClock(0),
        jitter: 'none',
        backoffBaseMs: 0,
        adaptiveBackoff: false,
      },
    );
    const context = { toolCallId: 't', messages: [], context: {} }; // `context` is required from ai 7
    expect(await tools.flaky.execute?.({ q: 'x' }, context)).toEqual({ answer: 42 });
    expect(calls).toBe(3);
    const unsafe = resilientToolSet({ flaky }, { server: 'api2', clock: createFakeClock(0) });
    calls = 0;
    const failed = (await unsafe.flaky.execute?.({ q: 'x' }, context)) as unknown as ToolFailureOutput;
    expect(calls).toBe(1); // may have run: not repeated for a tool not declared safe to repeat
    expect(failed.isError).toBe(true);
    expect(failed.content[0]?.text).toBe(
      "Tool 'flaky' failed (unavailable) after its request may already have reached the server, and was not retried because running it twice may not be safe; check whether it took effect before calling it again with the same arguments.",
    );
  });
});
