'use client';

import { useActionState } from 'react';
import { type ActionState, saveRule } from '@/lib/actions';
import type { AlertRule } from '@/lib/alerts/rule';

const initial: ActionState = { ok: true, message: '' };

export default function RuleForm({ rule }: { rule: AlertRule }) {
  const [state, action, pending] = useActionState(saveRule, initial);
  const min = (ms: number) => String(ms / 60_000);
  return (
    <form action={action} className="rule" data-testid="rule-form">
      <input type="hidden" name="id" value={rule.id} />
      <label>
        Threshold (efficiency)
        <input name="threshold" type="number" step="0.01" min="0" max="1" defaultValue={rule.threshold} />
      </label>
      <label>
        Short window (min)
        <input
          name="shortWindowMin"
          type="number"
          step="any"
          min="0.2"
          defaultValue={min(rule.shortWindowMs)}
        />
      </label>
      <label>
        Long window (min)
        <input
          name="longWindowMin"
          type="number"
          step="any"
          min="0.2"
          defaultValue={min(rule.longWindowMs)}
        />
      </label>
      <label>
        Minimum retries (long window)
        <input name="minRetries" type="number" step="1" min="0" defaultValue={rule.minRetries} />
      </label>
      <label>
        For (min)
        <input name="forMin" type="number" step="any" min="0" defaultValue={min(rule.forMs)} />
      </label>
      <label>
        Keep firing for (min)
        <input
          name="keepFiringForMin"
          type="number"
          step="any"
          min="0"
          defaultValue={min(rule.keepFiringForMs)}
        />
      </label>
      <label>
        Severity
        <select name="severity" defaultValue={rule.severity}>
          <option value="warning">warning</option>
          <option value="critical">critical</option>
        </select>
      </label>
      <label style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}>
        <input name="enabled" type="checkbox" defaultChecked={rule.enabled} /> enabled
      </label>
      <div>
        <button type="submit" className="btn" disabled={pending}>
          Save rule
        </button>
      </div>
      {state.message ? (
        <div className={`msg ${state.ok ? 'good' : 'bad'}`} role="status">
          {state.message}
        </div>
      ) : null}
    </form>
  );
}
