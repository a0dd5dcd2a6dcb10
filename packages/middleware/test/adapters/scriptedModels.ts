import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
import { Usage } from '@openai/agents';

/**
 * A scripted tool-calling chat model on LangChain's own `BaseChatModel` (core's `FakeListChatModel` answers with
 * text only): each call returns the next scripted AI message, and records the messages it was given.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  constructor(private readonly script: AIMessage[]) {
    super({});
  }
  _llmType() {
    return 'scripted';
  }
  async _generate(messages: BaseMessage[], _o?: unknown, _r?: CallbackManagerForLLMRun): Promise<ChatResult> {
    this.seen.push([...messages]);
    const message = this.script[this.seen.length - 1] ?? new AIMessage('out of script');
    return { generations: [{ text: String(message.content), message }] };
  }
}

/** A scripted model on the Agents SDK's own `Model` interface: each turn returns the next scripted output. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: ModelResponse['output'][]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.script[this.requests.length - 1] ?? this.script.at(-1) ?? [];
    return { usage: new Usage(), output, responseId: `r${this.requests.length}` };
  }
  // biome-ignore lint/correctness/useYield: the agent loop here uses getResponse only
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}
