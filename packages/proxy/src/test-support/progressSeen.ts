/**
 * Records the progress values of the `notifications/progress` a host transport receives, before the SDK client
 * handles them (an SDK v1 client drops the last one when the response arrives in the same chunk: that loss is the
 * host's, and would make a test of the proxy depend on timing).
 */
export function progressSeen(transport: object): number[] {
  const seen: number[] = [];
  const t = transport as {
    onmessage?: (message: { method?: string; params?: { progress?: number } }) => void;
  };
  t.onmessage = (message) => {
    if (message.method === 'notifications/progress' && typeof message.params?.progress === 'number') {
      seen.push(message.params.progress);
    }
  };
  return seen;
}
