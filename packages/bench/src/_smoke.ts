import { POLICIES, WHAT_IF } from './policies.js';
import { runQualityParallel } from './quality.js';
import { SCENARIOS } from './scenarios.js';
const t = performance.now();
const r = await runQualityParallel([1, 2, 3], SCENARIOS, [...POLICIES, ...WHAT_IF], 2);
console.log(r.cells.length, 'cells');
for (const c of r.cells) if (c.policy.startsWith('mcp-resilience')) console.log(c.scenario, c.policy, (100*c.metrics.successRate).toFixed(2), c.metrics.retryEfficiency?.toFixed(3), c.successBySeed.map(x=>x.toFixed(3)).join(' '));
console.log('total', ((performance.now() - t) / 1000).toFixed(1), 's');
