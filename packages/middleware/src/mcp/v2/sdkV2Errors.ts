/**
 * How errors of the MCP TypeScript SDK v2 (`@modelcontextprotocol/client` 2.x, read from 2.4.0's
 * `core-internal/src/errors/sdkErrors.ts`, `types/errors.ts`, `errors/crossBundleBrand.ts`) are recognised without
 * importing the package (an optional peer dependency):
 * - every SDK error carries its brands in a non-enumerable `Symbol.for('mcp.sdk.errorBrands')` set
 *   (`mcp.SdkError`, `mcp.SdkHttpError`, `mcp.ProtocolError`, `mcp.UnauthorizedError`, `mcp.OAuthError`...), which is
 *   what the SDK's own `instanceof` checks read, across bundles;
 * - `SdkError.code` is a string (`SdkErrorCode`); `SdkHttpError.data` is `{ status, statusText, text? }`;
 * - `ProtocolError.code` is the JSON-RPC code (a number), as v1's `McpError`.
 */

const BRANDS = Symbol.for('mcp.sdk.errorBrands');

/** Whether `error` carries the v2 SDK brand `mcp.<name>` (it or a subclass). */
export function hasV2Brand(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  try {
    const brands = (error as Record<symbol, unknown>)[BRANDS] as
      | { has?: (brand: string) => boolean }
      | undefined;
    return typeof brands?.has === 'function' && brands.has(`mcp.${name}`);
  } catch {
    return false;
  }
}

/** A v2 `SdkError` code (`REQUEST_TIMEOUT`, `CONNECTION_CLOSED`, ...), or undefined for anything else. */
export function sdkErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (!hasV2Brand(error, 'SdkError') && error.name !== 'SdkError' && error.name !== 'SdkHttpError') {
    return undefined;
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The HTTP status of a v2 `SdkHttpError` (`data.status`), or undefined. */
export function sdkHttpStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  if (!hasV2Brand(error, 'SdkHttpError') && error.name !== 'SdkHttpError') return undefined;
  const status = (error as { data?: { status?: unknown } }).data?.status;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}
