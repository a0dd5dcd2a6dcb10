/**
 * The error classes of the MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.x), loaded when the package is
 * installed: it is an optional peer dependency, and a v2-only application must be able to load this module. The
 * rules also duck-type these errors (the SDK ships ESM and CJS builds, and `instanceof` fails across them).
 */
type ErrorClass = abstract new (...args: never[]) => Error;

const load = async <T>(module: Promise<T>): Promise<T | undefined> => module.catch(() => undefined);

const [auth, sse, streamableHttp] = await Promise.all([
  load(import('@modelcontextprotocol/sdk/client/auth.js')),
  load(import('@modelcontextprotocol/sdk/client/sse.js')),
  load(import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
]);

export const UnauthorizedErrorV1: ErrorClass | undefined = auth?.UnauthorizedError;
export const SseErrorV1: ErrorClass | undefined = sse?.SseError;
export const StreamableHTTPErrorV1: ErrorClass | undefined = streamableHttp?.StreamableHTTPError;

/** `error instanceof cls`, false when the class is not loaded. */
export const isInstance = (error: unknown, cls: ErrorClass | undefined): boolean =>
  cls !== undefined && error instanceof cls;
