import { ATTR_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';
import type { AlertRule } from '@/lib/alerts/rule';
import RuleForm from './rule-form';

/** The alert rules, each in words and with its form. */
export default function RulesPanel({ rules }: { rules: readonly AlertRule[] }) {
  return (
    <section className="panel">
      <h2>Rules</h2>
      {rules.map((r) => (
        <div key={r.id}>
          <p style={{ fontSize: 13, marginTop: 0 }}>
            <b>{r.name}</b>: retry efficiency below <b>{r.threshold}</b> over both {r.shortWindowMs / 60_000}{' '}
            min and {r.longWindowMs / 60_000} min, with at least {r.minRetries} retries in the long window,
            for {r.forMs / 60_000} min (per <code>{ATTR_MCP_RESILIENCE_SERVER}</code>).{' '}
            {r.enabled ? '' : <b className="warn">Disabled.</b>}
          </p>
          <RuleForm rule={r} />
        </div>
      ))}
    </section>
  );
}
