import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolContext } from './ToolContext.js';
import { toolResult } from './toolResult.js';

const cities = [
  { city: 'Amsterdam', temperatureC: 12, conditions: 'drizzle' },
  { city: 'Berlin', temperatureC: 15, conditions: 'cloudy' },
  { city: 'London', temperatureC: 13, conditions: 'light rain' },
  { city: 'New York', temperatureC: 21, conditions: 'sunny' },
  { city: 'Paris', temperatureC: 17, conditions: 'partly cloudy' },
  { city: 'Sydney', temperatureC: 24, conditions: 'clear' },
  { city: 'Tokyo', temperatureC: 19, conditions: 'humid' },
];
const known = cities.map(({ city }) => city).join(', ');

/** `get_weather {city}`: read-only; a city outside the built-in list gives an `isError` "Invalid city" result. */
export function registerGetWeather(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'get_weather',
    {
      title: 'Get weather',
      description: `Current weather for a city. Known cities: ${known}.`,
      inputSchema: { city: z.string().describe('City name, e.g. "Paris"') },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ city }, extra) => {
      context.onExecute(extra.requestId);
      const found = cities.find((entry) => entry.city.toLowerCase() === city.trim().toLowerCase());
      return found ? toolResult(found) : toolResult(`Invalid city: "${city}". Known cities: ${known}`, true);
    },
  );
}
