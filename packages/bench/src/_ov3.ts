import { createResilience } from '@mcp-resilience/middleware';
const fn = async () => 42;
const b = createResilience({ timeoutMs: 30_000 });
const t = process.hrtime.bigint();
for (let i = 0; i < 100000; i++) { await b.execute(fn, { endpoint: 'x' }); if ((i & 255) === 255) await new Promise(r => setImmediate(r)); }
console.log((Number(process.hrtime.bigint() - t) / 100000).toFixed(0), 'ns');
