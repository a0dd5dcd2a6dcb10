import type { AttemptContext, CallContext, CallOptions } from '../call/CallOptions.js';
import { isResilienceError } from '../errors/ResilienceError.js';
import { callVariant } from '../experiment/callVariant.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_NETWORK_TRANSPORT,
  ERROR_TYPE_VALUE_TOOL_ERROR,
} from '../otel/semconv.js';
import { annotateAttempt } from '../record/attemptAnnotations.js';
import type { RequestOptionsLike, TransportLike } from './McpClientLike.js';
import { type McpEdge, transportOf } from './McpEdge.js';
import { networkTransport, type RequestArgs, sessionIdOf } from './sdkLine.js';
import { sendAttempt } from './sendAttempt.js';
import type { McpStageCall } from './stages/fallbacks.js';
import { failed, type Settled, settle } from './stages/Settled.js';
import { runStages } from './stages/Stage.js';
import { type CallToolResult, ToolResultError } from './ToolResultError.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };

/**
 * One request through a `withResilience` client: prepared (method, tool, endpoint, idempotency, typed context,
 * variant), then for a `tools/call` run through the edge's stages around the pipeline's attempts, then settled
 * (the value or result returned, else the error thrown).
 */
export class McpCall {
  readonly method: string;
  readonly tool: string | undefined;
  readonly arguments: unknown;
  readonly server: string;
  private pipeline: CallOptions;
  private started = 0;
  /** The transport the last attempt ran on: a recovery reconnects only when no other call did it meanwhile. */
  private attemptTransport: TransportLike | undefined;

  constructor(
    private readonly edge: McpEdge,
    private readonly self: unknown,
    readonly request: AnyRequest,
    readonly sdkArgs: RequestArgs,
    context: CallContext,
  ) {
    this.method = request.method;
    const name = request.params?.name;
    this.tool = this.method === 'tools/call' && typeof name === 'string' ? name : undefined;
    this.arguments = request.params?.arguments;
    this.server = edge.serverName();
    const { variant: pinned, ...rest } = context;
    const call: CallOptions = { ...this.pipelineOptions(), ...rest };
    // In an experiment the variant is drawn here, before the negative cache, which it keys (one variant's verdict
    // never answers the other's repeats). A fallback call keeps its primary's variant.
    const variant = callVariant(edge.resilience, pinned === undefined ? call : { ...call, variant: pinned });
    this.pipeline = variant === undefined ? call : { ...call, variant };
  }

  /** The pipeline's options: endpoint, idempotency, rules, recovery, limit and the typed context. */
  get options(): CallOptions {
    return this.pipeline;
  }

  /** When the pipeline started the call (after any listing of the tools). */
  get startedAt(): number {
    return this.started;
  }

  /** Whether the request may be repeated after a failure that may have executed. */
  get safeToRepeat(): boolean {
    return this.edge.policy.isSafe(this.method, this.tool);
  }

  /** Whether this is a `tools/call`: only those go through the stages. */
  isToolCall(): this is McpCall & McpStageCall {
    return this.tool !== undefined;
  }

  async run(): Promise<unknown> {
    if (!this.isToolCall()) return settle(await this.send());
    return settle(await runStages(this.edge.stages, this, () => this.send()));
  }

  private pipelineOptions(): CallOptions {
    const { edge, server, tool, method } = this;
    const transport = transportOf(edge.client);
    const perTool = edge.breakerScope === 'tool' && tool !== undefined;
    const requestOptions = this.sdkArgs.options;
    const sessionId = sessionIdOf(transport, edge.protocolVersion());
    const recovery = edge.reconnector?.recovery(() => this.attemptTransport);
    return {
      endpoint: perTool ? `${server}/${tool}` : server,
      endpointAttributes: perTool
        ? { [ATTR_MCP_RESILIENCE_SERVER]: server, [ATTR_GEN_AI_TOOL_NAME]: tool }
        : { [ATTR_MCP_RESILIENCE_SERVER]: server },
      operation: method,
      idempotent: this.safeToRepeat,
      attributes: this.attributes(transport),
      rules: edge.rules,
      ...(sessionId ? { sessionId } : {}),
      ...(recovery ? { recover: { session_expired: recovery, connection_closed: recovery } } : {}),
      ...(requestOptions?.signal ? { signal: requestOptions.signal } : {}),
      ...limitOf(requestOptions),
    };
  }

  /** Server, method, tool or prompt (low-cardinality: metrics use them), and `network.transport` (spans only). */
  private attributes(transport: TransportLike | undefined): Record<string, string> {
    const { request, tool } = this;
    const attributes: Record<string, string> = {
      [ATTR_MCP_RESILIENCE_SERVER]: this.server,
      [ATTR_MCP_METHOD_NAME]: this.method,
    };
    if (tool !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = tool;
    if (this.method === 'prompts/get' && typeof request.params?.name === 'string') {
      attributes[ATTR_GEN_AI_PROMPT_NAME] = request.params.name;
    }
    const network = networkTransport(transport);
    if (network) attributes[ATTR_NETWORK_TRANSPORT] = network;
    return attributes;
  }

  /** The pipeline's attempts, after the tools' annotations are listed when they decide idempotency. */
  private async send(): Promise<Settled> {
    const { edge, method, tool } = this;
    if (edge.policy.needsAnnotations(method, tool) && edge.annotations.needsRefresh(edge.clock.now())) {
      // After the negative cache: a repeat answered from it sends nothing, not even `tools/list`.
      await edge.refreshTools(this.sdkArgs.options?.signal);
      this.pipeline = { ...this.pipeline, idempotent: this.safeToRepeat };
    }
    this.started = edge.clock.now();
    try {
      const value = await edge.resilience.execute((context) => this.attempt(context), this.pipeline);
      const readOnly = tool !== undefined && edge.annotations.get(tool)?.readOnlyHint === true;
      return { kind: 'value', value, changedState: tool !== undefined && !readOnly };
    } catch (thrown) {
      if (!isResilienceError(thrown)) throw thrown;
      return failed(thrown);
    }
  }

  /** One attempt: connected first if needed, sent through the SDK; an `isError` result fails it. */
  private async attempt({ signal, traceContext }: AttemptContext): Promise<unknown> {
    const { edge, request } = this;
    await edge.reconnector?.ensureConnected();
    const transport = transportOf(edge.client);
    this.attemptTransport = transport;
    const mark = edge.fetch?.mark();
    const params = withTraceContext(request.params, traceContext);
    const version = edge.protocolVersion();
    let result: unknown;
    try {
      result = await sendAttempt({
        client: edge.client,
        self: this.self,
        originalRequest: edge.originalRequest,
        request: params === request.params ? request : { ...request, params },
        args: this.sdkArgs,
        signal,
        traceContext,
        fetch: edge.fetch,
        protocolVersion: version,
      });
    } catch (error) {
      const failures = mark === undefined ? [] : (edge.fetch?.failuresSince(mark) ?? []);
      edge.facts.record(error, failures, sessionIdOf(transport, version), version);
      throw error;
    }
    // An `input_required` result (2026-07-28 multi-round-trip, `allowInputRequired`) is a result, not a failure.
    if (this.method === 'tools/call' && (result as CallToolResult | undefined)?.isError === true) {
      annotateAttempt(traceContext, { [ATTR_ERROR_TYPE]: ERROR_TYPE_VALUE_TOOL_ERROR });
      throw new ToolResultError(result as CallToolResult);
    }
    if (this.method === 'tools/list') edge.annotations.update(result, request.params?.cursor === undefined);
    return result;
  }
}

/** Copies the attempt's trace context (`traceparent`) into `params._meta`, so the server's spans join the trace. */
function withTraceContext(
  params: Record<string, unknown> | undefined,
  traceContext: Readonly<Record<string, string>>,
) {
  if (Object.keys(traceContext).length === 0) return params;
  const meta = (params?._meta ?? {}) as Record<string, unknown>;
  return { ...params, _meta: { ...meta, ...traceContext } };
}

/**
 * The call's limit from the SDK's request options: its `timeout` (unless `resetTimeoutOnProgress` makes it an idle
 * timeout) and `maxTotalTimeout`, whichever ends first. None given: the call has no limit of its own.
 */
export function limitOf(options: RequestOptionsLike | undefined): { timeoutMs?: number } {
  if (!options) return {};
  const limits = [
    options.resetTimeoutOnProgress === true ? undefined : options.timeout,
    options.maxTotalTimeout,
  ];
  const given = limits.filter((ms): ms is number => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0);
  return given.length === 0 ? {} : { timeoutMs: Math.min(...given) };
}
