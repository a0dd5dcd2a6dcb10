import { describe, expect, it } from 'vitest';
import { type AgentLayerCell, renderAgentLayer, runAgentLayer } from '../src/agentLayer.js';

const cell = (cells: readonly AgentLayerCell[], fault: string, model: string, policy: string) => {
  const found = cells.find((c) => c.fault === fault && c.model === model && c.policy === policy);
  if (!found) throw new Error(`no cell ${fault}/${model}/${policy}`);
  return found;
};

describe('agent layer benchmark', () => {
  it('counts what each policy sends and what the model pays for an invalid call repeated by the model', async () => {
    const cells = await runAgentLayer({ tasks: 4, costPerAttempt: 0.5 });
    // The model calls 3 times, then answers: 4 LLM calls per task whatever the tool layer does.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'naive')).toMatchObject({
      llmCalls: 16,
      wastedLlmCalls: 8,
      toolRequests: 4 * 3 * 6, // 6 requests per model call (5 retries)
      wastedCost: (4 * 3 * 6 - 4) * 0.5,
    });
    // LangGraph's default RetryPolicy retries a JSON-RPC -32602 (no HTTP status): 3 requests per model call.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'langgraph').toolRequests).toBe(4 * 3 * 3);
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'ai-sdk').toolRequests).toBe(4 * 3);
    // mcp-resilience: one request per task; the model's repeats are answered from the negative cache.
    expect(cell(cells, 'invalid_arguments', 'stubborn', 'mcp-resilience')).toMatchObject({
      toolRequests: 4,
      wastedToolRequests: 0,
    });
    // A model that reads "cannot succeed" stops after the first error: 2 LLM calls per task.
    expect(cell(cells, 'invalid_arguments', 'reads-errors', 'mcp-resilience')).toMatchObject({
      llmCalls: 8,
      wastedLlmCalls: 0,
    });
    // After a blip, retrying in the tool layer saves the model's repeat; the AI SDK pays one LLM call for it.
    expect(cell(cells, 'blip', 'stubborn', 'mcp-resilience').wastedLlmCalls).toBe(0);
    expect(cell(cells, 'blip', 'stubborn', 'ai-sdk').wastedLlmCalls).toBe(4);
    // An outage: retried while it may be a blip, then the open breaker answers at once without a request.
    expect(cell(cells, 'outage', 'stubborn', 'mcp-resilience').toolRequests).toBeLessThan(
      cell(cells, 'outage', 'stubborn', 'langgraph').toolRequests,
    );
    expect(renderAgentLayer(cells, 0.5)).toMatch(
      /\| invalid_arguments \| stubborn \| mcp-resilience \| 16 \| 8 \| 4 \| 0 \| 0 \|/,
    );
  });
});
