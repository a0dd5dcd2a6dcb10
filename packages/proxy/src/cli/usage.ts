/** The text of `mcp-resilience --help`. */
export const USAGE = `mcp-resilience: the MCP resilience layer in front of any MCP server, for any host

Usage:
  mcp-resilience wrap [options] -- <command> [args...]   stdio to the host, the command as a stdio child
  mcp-resilience connect [options] [--header 'Name: value']... <url>
                                                         stdio to the host, Streamable HTTP to <url>
  mcp-resilience gateway --config <file> [--host 127.0.0.1] [--port 8787] [--token <t>]
                         [--allowed-origin <origin>]... [--allowed-host <host:port>]...
                                                         Streamable HTTP at /<name>/mcp for each mcpServers entry

Options (every mode):
  --server-name <name>          mcp.resilience.server in telemetry and the breaker key (default: the upstream's name)
  --service-name <name>         OpenTelemetry service.name (default: OTEL_SERVICE_NAME, else mcp-resilience)
  --request-timeout-ms <n>      one attempt's time limit, reset by progress (default 60000)
  --input-round-timeout-ms <n>  how long an input_required round waits for a 2026-07-28 host's repeat (default 60000)
  --max-attempts <n>  --timeout-ms <n>  --attempt-timeout-ms <n>  --backoff-base-ms <n>  --backoff-max-ms <n>
  --retry-after-max-ms <n>  --breaker-consecutive-failures <n>  --breaker-break-ms <n>  --breaker-max-break-ms <n>
  --negative-cache-ttl-ms <n>  --breaker-wait true|false
  --idempotency annotations|assume-idempotent|never   --breaker-scope server|tool

Telemetry goes to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP/HTTP) when it is set; stdout carries only MCP.
The gateway's token can also come from MCP_RESILIENCE_TOKEN. GET /healthz answers 200 while it runs.
`;
