import { runStdioProxy } from '../host/runStdioProxy.js';
import { parseCommandLine } from './parseCommandLine.js';
import { startTelemetry } from './startTelemetry.js';

/**
 * Runs `mcp-resilience` with `argv` (without `node` and the script). Resolves with the exit code once the mode
 * ends: `wrap` and `connect` when the host goes away, `gateway` on SIGINT or SIGTERM. Everything it says goes to
 * stderr (stdout is the host's MCP stream in `wrap` and `connect`).
 */
export async function runCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const line = parseCommandLine(argv, env);
  if (line.kind === 'help') {
    process.stderr.write(line.text);
    return 0;
  }
  if (line.kind === 'error') {
    process.stderr.write(`mcp-resilience: ${line.message}\n`);
    return 2;
  }
  const telemetry = await startTelemetry(line.flags.serviceName, env);
  const resilience = {
    ...line.flags.resilience,
    ...(telemetry.recorder ? { recorder: telemetry.recorder } : {}),
  };
  try {
    if (line.kind === 'stdio') {
      const proxy = await runStdioProxy({
        upstream: { spec: line.spec, resilience },
        ...(line.flags.requestTimeoutMs ? { requestTimeoutMs: line.flags.requestTimeoutMs } : {}),
        ...(line.flags.inputRoundTimeoutMs ? { inputRoundTimeoutMs: line.flags.inputRoundTimeoutMs } : {}),
      });
      onSignal(() => void proxy.close());
      await proxy.closed;
      return 0;
    }
    // Loaded only in this mode: `wrap` and `connect` never load the HTTP server side (memory of every wrapper).
    const { startGateway } = await import('../gateway/startGateway.js');
    const gateway = await startGateway({
      configFile: line.config,
      host: line.host,
      port: line.port,
      ...(line.token === undefined ? {} : { token: line.token }),
      allowedOrigins: line.allowedOrigins,
      allowedHosts: line.allowedHosts,
      resilience,
      ...(line.flags.requestTimeoutMs ? { requestTimeoutMs: line.flags.requestTimeoutMs } : {}),
      ...(line.flags.inputRoundTimeoutMs ? { inputRoundTimeoutMs: line.flags.inputRoundTimeoutMs } : {}),
    });
    process.stderr.write(`mcp-resilience gateway: listening on ${gateway.url}\n`);
    await new Promise<void>((resolve) => onSignal(resolve));
    await gateway.close();
    return 0;
  } catch (error) {
    process.stderr.write(`mcp-resilience: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await telemetry.shutdown();
  }
}

function onSignal(handler: () => void): void {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
