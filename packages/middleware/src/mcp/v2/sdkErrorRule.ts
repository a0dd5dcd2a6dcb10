import type { Classification } from '../../classify/Classification.js';
import type { FunctionRule } from '../../classify/ClassificationRule.js';
import { capMessage } from '../../classify/readClassification.js';
import { sdkErrorCode } from './sdkV2Errors.js';

type Verdict = Omit<Classification, 'source' | 'message'>;

const nonRetryable = (type: Classification['type'], execution: Classification['execution']): Verdict => ({
  class: 'non_retryable',
  type,
  execution,
});

/**
 * The v2 SDK's local errors (`SdkError`, string codes; `core-internal/src/errors/sdkErrors.ts` of 2.4.0). The HTTP
 * ones with a status (`SdkHttpError`) are classified by status by the HTTP rule before this one.
 */
const BY_CODE: Readonly<Record<string, Verdict>> = {
  NOT_CONNECTED: { class: 'conditional', type: 'connection_closed', execution: 'not_sent' },
  CONNECTION_CLOSED: { class: 'conditional', type: 'connection_closed', execution: 'unknown' },
  SEND_FAILED: { class: 'retryable', type: 'network', execution: 'unknown' },
  ALREADY_CONNECTED: nonRetryable('invalid_request', 'not_sent'),
  NOT_INITIALIZED: { class: 'conditional', type: 'connection_closed', execution: 'not_sent' },
  CAPABILITY_NOT_SUPPORTED: nonRetryable('method_not_found', 'not_sent'),
  METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION: nonRetryable('method_not_found', 'not_sent'),
  ERA_NEGOTIATION_FAILED: nonRetryable('invalid_request', 'not_sent'),
  // The server answered with something the client cannot use: the request ran.
  INVALID_RESULT: nonRetryable('invalid_request', 'executed'),
  UNSUPPORTED_RESULT_TYPE: nonRetryable('invalid_request', 'executed'),
  INPUT_REQUIRED_ROUNDS_EXCEEDED: nonRetryable('user_action_required', 'executed'),
  LIST_PAGINATION_EXCEEDED: nonRetryable('invalid_request', 'executed'),
  CLIENT_HTTP_AUTHENTICATION: nonRetryable('unauthorized', 'not_sent'),
  CLIENT_HTTP_FORBIDDEN: nonRetryable('forbidden', 'not_sent'),
  CLIENT_HTTP_UNEXPECTED_CONTENT: nonRetryable('invalid_request', 'unknown'),
};

/**
 * A v2 `SdkError`, by its string code. `REQUEST_TIMEOUT` is the SDK's timeout when it carries `data.timeout` (or
 * `data.maxTotalTimeout`), and a caller abort otherwise (the SDK reports both with that code; an abort whose reason
 * was a time limit, such as the loop's attempt limit, says `TimeoutError` in its message).
 */
export const sdkErrorRule: FunctionRule = (error) => {
  const code = sdkErrorCode(error);
  if (code === undefined) return undefined;
  const message = capMessage((error as Error).message);
  const source = `mcp.sdk.${code.toLowerCase()}`;
  if (code === 'REQUEST_TIMEOUT') {
    const data = (error as { data?: Record<string, unknown> }).data;
    const timedOut =
      typeof data?.timeout === 'number' ||
      typeof data?.maxTotalTimeout === 'number' ||
      /TimeoutError/.test(message);
    return timedOut
      ? { class: 'retryable', type: 'timeout', execution: 'unknown', source, message }
      : {
          class: 'non_retryable',
          type: 'cancelled',
          execution: 'unknown',
          healthNeutral: true,
          source,
          message,
        };
  }
  const verdict = BY_CODE[code];
  return verdict ? { ...verdict, source, message } : undefined;
};
