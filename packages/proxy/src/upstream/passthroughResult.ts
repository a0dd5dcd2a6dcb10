/**
 * The result schema of forwarded requests: any JSON object, unchanged (the host validates what it receives;
 * the SDK's own `ResultSchema` would copy every result once more). Shaped as a zod-3 schema, which is what the
 * SDK's `request()` accepts besides zod 4.
 */
export const passthroughResult = {
  safeParse(data: unknown) {
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? { success: true as const, data: data as Record<string, unknown> }
      : {
          success: false as const,
          error: new Error(`a result must be a JSON object, not ${JSON.stringify(data)}`),
        };
  },
};
