import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  Send,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resilientToolNode, resilientTools } from '../../src/adapters/langgraph.js';
import { createResilience } from '../../src/createResilience.js';
import type { ExperimentResilience } from '../../src/experiment/createExperiment.js';
import { CLASSIFICATION_META_KEY } from '../../src/mcp/index.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { createFakeClock } from '../../src/testing/createFakeClock.js';
import { callsOf, connectedChaos, INVALID_CALL } from './chaosServer.js';
import { ScriptedChatModel } from './scriptedModels.js';

const repeatInvalid = (times: number) => [
  ...Array.from(
    { length: times },
    (_, i) =>
      new AIMessage({
        content: '',
        tool_calls: [{ id: `call_${i + 1}`, ...INVALID_CALL, type: 'tool_call' }],
      }),
  ),
  new AIMessage('I could not find the weather for Atlantis.'),
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('LangGraph.js adapter', () => {
  it('a ReAct graph repeating an invalid MCP call: the server sees it once, the model reads error ToolMessages', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const tools = await loadMcpTools('chaos', chaos.client);
    const model = new ScriptedChatModel(repeatInvalid(3));
    const recorder = createMemoryRecorder();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', resilientToolNode(tools, { server: 'chaos', recorder }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('Weather in Atlantis?')] });

    expect(callsOf(chaos.http, 'get_weather')).toBe(1);
    expect(model.seen).toHaveLength(4);
    const answers = model.seen.slice(1).map((messages) => messages.at(-1));
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(ToolMessage);
      const message = answer as ToolMessage;
      expect(message.status).toBe('error');
      expect(message.content).toMatch(
        /^Tool call 'get_weather' failed with a non-retryable error \(invalid_params\): .*Invalid city/,
      );
      expect(message.content).toMatch(/calling it again with the same arguments cannot succeed/);
      expect(message.artifact[CLASSIFICATION_META_KEY]).toMatchObject({
        class: 'non_retryable',
        type: 'invalid_params',
      });
    }
    expect(answers.map((m) => (m as ToolMessage).artifact.repeat)).toEqual([false, true, true]);
    expect(recorder.ofType('model_retry_avoided')).toHaveLength(2);
    expect(String(result.messages.at(-1)?.content)).toBe('I could not find the weather for Atlantis.');
  });

  it('resilientTools: any StructuredTool, its failure thrown with the sentence for the model, repeats refused', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const [weather] = resilientTools(
      (await loadMcpTools('chaos', chaos.client)).filter((t) => t.name === 'get_weather'),
      { server: 'chaos' },
    );
    expect(await weather?.invoke({ city: 'Paris' })).toMatch(/Paris/);
    for (let i = 0; i < 3; i++) {
      await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({
        name: 'ResilientToolError',
        message: expect.stringMatching(/non-retryable error \(invalid_params\)/),
        classification: { type: 'invalid_params' },
      });
    }
    expect(callsOf(chaos.http, 'get_weather')).toBe(2);
  });

  it('an unknown tool and an open breaker become error ToolMessages at once, without sleeping', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const tools = await loadMcpTools('chaos', chaos.client);
    await chaos.http.close(); // the server is gone: every call fails with a connection error
    const node = resilientToolNode(tools, {
      server: 'chaos',
      clock: createFakeClock(0),
      breakerConsecutiveFailures: 1,
      breakerBreakMs: 60_000,
      breakerJitter: 0,
    });
    const ask = async (name: string, id: string) =>
      (await node({
        messages: [
          new AIMessage({ content: '', tool_calls: [{ id, name, args: { query: 'x' }, type: 'tool_call' }] }),
        ],
      })) as { messages: ToolMessage[] };
    const [unknown] = (await ask('no_such_tool', 'a')).messages;
    expect(unknown?.status).toBe('error');
    expect(unknown?.content).toMatch(/^Tool 'no_such_tool' does not exist; call one of: .*search/);
    const [down] = (await ask('search', 'b')).messages;
    expect(down?.status).toBe('error');
    const [open] = (await ask('search', 'c')).messages;
    expect(open?.content).toMatch(/^Tool 'search' is unavailable: its server is failing .* after about 60 s/);
    expect(open?.artifact[CLASSIFICATION_META_KEY]).toMatchObject({
      type: 'circuit_open',
      reason: 'circuit_open',
    });
  });
});

describe('LangGraph control flow through the resilient tools', () => {
  /** A human-in-the-loop tool: asks for approval with `interrupt()`, then calls the MCP weather tool. */
  async function approvalTool(chaos: Awaited<ReturnType<typeof connectedChaos>>) {
    const weather = (await loadMcpTools('chaos', chaos.client)).find((t) => t.name === 'get_weather');
    return tool(
      async ({ city }) => {
        const approved = interrupt({ question: `Look up the weather in ${city}?` });
        if (approved !== 'yes') return 'The user declined.';
        return String(await weather?.invoke({ city }));
      },
      {
        name: 'approved_weather',
        description: 'The weather in a city, once the user approves',
        schema: z.object({ city: z.string() }),
      },
    );
  }
  const callApproved = new AIMessage({
    content: '',
    tool_calls: [{ id: 'call_1', name: 'approved_weather', args: { city: 'Paris' }, type: 'tool_call' }],
  });

  for (const kind of ['resilientToolNode', 'resilientTools'] as const) {
    it(`${kind}: interrupt() in a tool pauses the graph (no error, no breaker failure) and resume completes`, async () => {
      const chaos = await connectedChaos();
      cleanups.push(chaos.close);
      const approve = await approvalTool(chaos);
      const model = new ScriptedChatModel([callApproved, new AIMessage('It is sunny in Paris.')]);
      const recorder = createMemoryRecorder();
      // One failure would open the breaker for a minute: the resumed call is refused if the interrupt counted.
      const options = {
        server: 'chaos',
        recorder,
        clock: createFakeClock(0),
        breakerConsecutiveFailures: 1,
        breakerBreakMs: 60_000,
      };
      const node =
        kind === 'resilientToolNode'
          ? resilientToolNode([approve], options)
          : new ToolNode(resilientTools([approve], options));
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
        .addNode('tools', node)
        .addEdge(START, 'agent')
        .addConditionalEdges('agent', toolsCondition, ['tools', END])
        .addEdge('tools', 'agent')
        .compile({ checkpointer: new MemorySaver() });
      const thread = { configurable: { thread_id: `hitl-${kind}` } };

      const paused = await graph.invoke({ messages: [new HumanMessage('Weather in Paris?')] }, thread);

      expect((paused as { [INTERRUPT]?: Array<{ value: unknown }> })[INTERRUPT]?.[0]?.value).toEqual({
        question: 'Look up the weather in Paris?',
      });
      expect(paused.messages.filter((m) => ToolMessage.isInstance(m))).toEqual([]);
      expect(recorder.ofType('failure_classified')).toEqual([]);
      expect(callsOf(chaos.http, 'get_weather')).toBe(0);

      const done = await graph.invoke(new Command({ resume: 'yes' }), thread);

      const answers = done.messages.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
      expect(answers).toHaveLength(1);
      expect(answers[0]?.status).not.toBe('error');
      expect(String(answers[0]?.content)).toMatch(/Paris/);
      expect(callsOf(chaos.http, 'get_weather')).toBe(1);
      expect(recorder.ofType('failure_classified')).toEqual([]);
      expect(String(done.messages.at(-1)?.content)).toBe('It is sunny in Paris.');
    });
  }

  it('resilientToolNode: a tool returning a Command updates the state, as under ToolNode', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const weather = (await loadMcpTools('chaos', chaos.client)).find((t) => t.name === 'get_weather');
    const remember = tool(
      async ({ city }, config: RunnableConfig & { toolCallId?: string }) => {
        const report = String(await weather?.invoke({ city }));
        return new Command({
          update: {
            city,
            messages: [new ToolMessage({ tool_call_id: config.toolCallId ?? '', content: report })],
          },
        });
      },
      {
        name: 'remember_city',
        description: 'Remembers the city the user is in and tells its weather',
        schema: z.object({ city: z.string() }),
      },
    );
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'call_1', name: 'remember_city', args: { city: 'Paris' }, type: 'tool_call' },
          { id: 'call_2', ...INVALID_CALL, type: 'tool_call' },
        ],
      }),
      new AIMessage('Noted: Paris.'),
    ]);
    const State = Annotation.Root({ ...MessagesAnnotation.spec, city: Annotation<string>() });
    const tools = (await loadMcpTools('chaos', chaos.client)).filter((t) => t.name === 'get_weather');
    const graph = new StateGraph(State)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', resilientToolNode([remember, ...tools], { server: 'chaos' }))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('I am in Paris.')] });

    expect(result.city).toBe('Paris');
    const answers = result.messages.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
    expect(answers.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
    expect(String(answers[0]?.content)).toMatch(/Paris/);
    expect(String(answers[0]?.content)).not.toMatch(/lg_name/);
    expect(answers[1]?.status).toBe('error');
    expect(String(result.messages.at(-1)?.content)).toBe('Noted: Paris.');
  });

  it('resilientToolNode: parent Commands fanning out with Send are merged into one, as ToolNode does', async () => {
    const fanOut = (name: string) =>
      tool(async () => new Command({ graph: Command.PARENT, goto: [new Send('worker', { job: name })] }), {
        name,
        description: `Hands ${name} to a worker of the parent graph`,
        schema: z.object({}),
      });
    const node = resilientToolNode([fanOut('a'), fanOut('b')], { server: 'local' });
    const calls = ['a', 'b'].map((name) => ({
      id: `call_${name}`,
      name,
      args: {},
      type: 'tool_call' as const,
    }));
    const outputs = await node({ messages: [new AIMessage({ content: '', tool_calls: calls })] });
    expect(outputs).toHaveLength(1);
    const [parent] = outputs as Command[];
    expect(parent).toBeInstanceOf(Command);
    expect(parent?.graph).toBe(Command.PARENT);
    expect(((parent?.goto ?? []) as Send[]).map((send) => send.args)).toEqual([{ job: 'a' }, { job: 'b' }]);
  });
});

describe('negative cache', () => {
  it('a successful call of a tool not declared idempotent clears it: the invalid call reaches the server again', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const [weather] = resilientTools(
      (await loadMcpTools('chaos', chaos.client)).filter((t) => t.name === 'get_weather'),
      { server: 'chaos' },
    );
    await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({ name: 'ResilientToolError' });
    await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({ name: 'ResilientToolError' });
    expect(callsOf(chaos.http, 'get_weather')).toBe(1); // the repeat was answered from the cache
    expect(await weather?.invoke({ city: 'Paris' })).toMatch(/Paris/); // may have changed the server's state
    await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({ name: 'ResilientToolError' });
    expect(callsOf(chaos.http, 'get_weather')).toBe(3);
  });

  it('a successful call of an idempotent tool keeps it', async () => {
    const chaos = await connectedChaos();
    cleanups.push(chaos.close);
    const [weather] = resilientTools(
      (await loadMcpTools('chaos', chaos.client)).filter((t) => t.name === 'get_weather'),
      { server: 'chaos', idempotent: { get_weather: true } },
    );
    await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({ name: 'ResilientToolError' });
    expect(await weather?.invoke({ city: 'Paris' })).toMatch(/Paris/);
    await expect(weather?.invoke(INVALID_CALL.args)).rejects.toMatchObject({ name: 'ResilientToolError' });
    expect(callsOf(chaos.http, 'get_weather')).toBe(2);
  });
});

describe('adapter options', () => {
  it('names the option in validation errors', () => {
    expect(() => resilientTools([], { guard: { negativeCache: { ttlMs: Number.NaN } } })).toThrow(
      "resilient tools: option 'guard.negativeCache.ttlMs' must be a finite number >= 0 (milliseconds; 0 turns the cache off), got NaN",
    );
    expect(() =>
      resilientToolNode([], { guard: { idempotency: { tools: { search: 'yes' as never } } } }),
    ).toThrow(
      /option 'guard.idempotency' must be one of 'always', 'never', or \{ default\?: 'always' \| 'never', tools/,
    );
    expect(() => resilientTools([], { negativeCacheTypes: ['typo' as never] })).toThrow(
      /option 'guard.negativeCache.types'/,
    );
    expect(() => resilientTools([], { server: '' })).toThrow(
      /option 'guard.server' must be a non-empty string/,
    );
    expect(() => resilientToolNode([], { idempotent: { search: 'yes' as never } })).toThrow(
      /'guard.idempotency'/,
    );
    expect(() => resilientTools([], { maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});

describe('tool adapters in an experiment', () => {
  it("keeps one negative cache per variant: the candidate's final verdict never answers the control's repeats", async () => {
    let key = '';
    const resilience = createResilience({
      clock: createFakeClock(0),
      maxAttempts: 1,
      variants: {
        control: {},
        candidate: {
          rules: [
            {
              name: 'unknown-city',
              message: /unknown city/i,
              classify: { class: 'non_retryable', type: 'invalid_params' },
            },
          ],
        },
      },
      split: { control: 0.5, candidate: 0.5 },
      variantKey: () => key,
    });
    const keyFor = (variant: string) => {
      for (let i = 0; ; i++) {
        key = `conversation-${i}`;
        if ((resilience as unknown as ExperimentResilience).variantOf({}) === variant) return key;
      }
    };
    const [candidateKey, controlKey] = [keyFor('candidate'), keyFor('control')];
    let runs = 0;
    const lookup = tool(
      async () => {
        runs++;
        throw new Error('Unknown city: Atlantis');
      },
      { name: 'lookup', description: 'looks a city up', schema: z.object({ city: z.string() }) },
    );
    const [guarded] = resilientTools([lookup], { server: 'geo', resilience });
    const call = () => guarded!.invoke({ city: 'Atlantis' }).catch((e: { classification?: unknown }) => e);

    key = candidateKey;
    expect(await call()).toMatchObject({ classification: { class: 'non_retryable' } });
    expect(await call()).toMatchObject({ classification: { class: 'non_retryable' } });
    expect(runs).toBe(1); // the candidate's repeat answered from its cache
    key = controlKey;
    expect(await call()).toMatchObject({ classification: { class: 'retryable' } });
    expect(runs).toBe(2); // the control's call ran: the candidate's verdict is not the control's
  });
});
