/**
 * The result schema of forwarded requests: any JSON object, unchanged (the host validates what it receives;
 * the SDK's own `ResultSchema` would copy every result once more). Shaped as a zod-3 schema, which is what the
 * SDK v1's `request()` accepts besides zod 4, and as a Standard Schema, which is what the SDK v2's takes.
 */
export const passthroughResult = {
  '~standard': {
    version: 1,
    vendor: 'mcp-resilience',
    validate: (value: unknown) => {
      const parsed = passthroughResult.safeParse(value);
      return parsed.success ? { value: parsed.data } : { issues: [{ message: parsed.error.message }] };
    },
  },
  safeParse(data: unknown) {
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? { success: true as const, data: data as Record<string, unknown> }
      : {
          success: false as const,
          error: new Error(`a result must be a JSON object, not ${JSON.stringify(data)}`),
        };
  },
};
