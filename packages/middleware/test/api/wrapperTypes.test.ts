import { DynamicStructuredTool, tool as langchainTool } from '@langchain/core/tools';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { MCPServer } from '@openai/agents';
import { tool as aiTool, type ToolSet } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { resilientToolSet } from '../../src/adapters/ai.js';
import { resilientTools } from '../../src/adapters/langgraph.js';
import { resilientMcpServer } from '../../src/adapters/openaiAgents.js';
import { createResilience, type Resilience } from '../../src/index.js';
import { connectWithResilience, withResilience } from '../../src/mcp/index.js';

/**
 * The wrappers keep the type of what they wrap, so a call site written for the plain object compiles unchanged.
 * Checked by `npm run typecheck` (the `expectTypeOf` lines), and at run time where a value can say it.
 */
describe('the wrappers keep their input types', () => {
  it('withResilience returns the client of either SDK line as its own type', () => {
    const v1 = new Client({ name: 'types', version: '1.0.0' });
    const v2 = new ClientV2({ name: 'types', version: '1.0.0' });
    const wrapped = withResilience(v1);
    expectTypeOf(wrapped).toEqualTypeOf<Client>();
    expectTypeOf(withResilience(v2)).toEqualTypeOf<ClientV2>();
    expectTypeOf(wrapped.callTool).toEqualTypeOf<Client['callTool']>();
    expect(wrapped).toBeInstanceOf(Client);
    expect(wrapped).not.toBe(v1);
  });

  it('connectWithResilience resolves to the client type it was given', () => {
    expectTypeOf(connectWithResilience<Client>).returns.resolves.toEqualTypeOf<Client>();
    expectTypeOf(connectWithResilience<ClientV2>).returns.resolves.toEqualTypeOf<ClientV2>();
  });

  it('createResilience returns a Resilience whose execute keeps the value type', () => {
    const resilience = createResilience();
    expectTypeOf(resilience).toEqualTypeOf<Resilience>();
    expectTypeOf(resilience.execute(() => 42)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(resilience.execute(async () => 'text')).toEqualTypeOf<Promise<string>>();
  });

  it('the adapters return what they were given, or LangChain tools', () => {
    const tools = {
      weather: aiTool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => city }),
    } satisfies ToolSet;
    const guarded = resilientToolSet(tools);
    expectTypeOf(guarded).toEqualTypeOf<typeof tools>();
    expect(Object.keys(guarded)).toEqual(['weather']);

    const echo = langchainTool(async ({ text }: { text: string }) => text, {
      name: 'echo',
      schema: z.object({ text: z.string() }),
    });
    const langchain = resilientTools([echo]);
    expectTypeOf(langchain).toEqualTypeOf<DynamicStructuredTool[]>();
    expect(langchain[0]).toBeInstanceOf(DynamicStructuredTool);

    expectTypeOf(resilientMcpServer<MCPServer>).returns.toEqualTypeOf<MCPServer>();
  });
});
