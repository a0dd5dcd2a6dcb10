import { setTimeout as sleep } from 'node:timers/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolContext } from './ToolContext.js';
import { toolResult } from './toolResult.js';

/**
 * `generate_report {topic, steps?}`: slow and read-only. Takes `steps * stepMs`; when the request carries a
 * `progressToken` it sends `notifications/progress` as each step starts (progress = steps done, 0 to steps - 1).
 */
export function registerGenerateReport(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'generate_report',
    {
      title: 'Generate report',
      description: 'Writes a report on a topic, one section per step. Slow; reports progress.',
      inputSchema: {
        topic: z.string().min(1).describe('What the report is about'),
        steps: z.number().int().min(1).max(100).optional().describe('Number of sections (default 5)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ topic, steps = 5 }, extra) => {
      context.onExecute(extra.requestId);
      const progressToken = extra._meta?.progressToken;
      for (let done = 0; done < steps; done++) {
        // Progress goes out as each section starts, so the last notification comes a step before the result.
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken,
              progress: done,
              total: steps,
              message: `Writing section ${done + 1} of ${steps}`,
            },
          });
        }
        await sleep(context.stepMs, undefined, { signal: extra.signal });
      }
      const sections = Array.from({ length: steps }, (_, i) => `${i + 1}. ${topic}, part ${i + 1}`);
      return toolResult(`Report: ${topic}\n${sections.join('\n')}`);
    },
  );
}
