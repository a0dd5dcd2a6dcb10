/** What an agent asks for: a tool of one of the servers, with arguments the model got right or wrong. */
export interface Step {
  readonly server: 'weather' | 'search' | 'tickets';
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The arguments a model would send after reading the validation error. */
  readonly fixed?: Record<string, unknown>;
}

const cities = ['Amsterdam', 'Berlin', 'London', 'New York', 'Paris', 'Sydney', 'Tokyo'];
const topics = ['latency', 'error budget', 'on-call', 'capacity', 'MCP adoption'];

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** The next step of a ReAct-style agent: a tool chosen by weight; with probability `badRate` wrong arguments. */
export function nextStep(random: () => number, badRate: number): Step {
  const bad = random() < badRate;
  const r = random();
  if (r < 0.4) {
    const good = { city: pick(random, cities) };
    return bad
      ? { server: 'weather', tool: 'get_weather', args: { city: 'Atlantis' }, fixed: good }
      : { server: 'weather', tool: 'get_weather', args: good };
  }
  if (r < 0.75) {
    // Arguments vary from call to call, as a model's do (a fault drawn per call is keyed by them).
    const good = { query: `${pick(random, topics)} best practices`, limit: 1 + Math.floor(random() * 10) };
    return bad
      ? { server: 'search', tool: 'search', args: { query: '', limit: 50 }, fixed: good }
      : { server: 'search', tool: 'search', args: good };
  }
  if (r < 0.9) {
    const good = {
      title: `Investigate ${pick(random, topics)}`,
      body: `Opened by the demo agent (case ${Math.floor(random() * 1e6)})`,
    };
    return bad
      ? { server: 'tickets', tool: 'create_ticket', args: { body: 'no title' }, fixed: good }
      : { server: 'tickets', tool: 'create_ticket', args: good };
  }
  const good = { topic: pick(random, topics), steps: 1 + Math.floor(random() * 3) };
  return bad
    ? { server: 'tickets', tool: 'generate_report', args: { steps: 'many' }, fixed: good }
    : { server: 'tickets', tool: 'generate_report', args: good };
}
