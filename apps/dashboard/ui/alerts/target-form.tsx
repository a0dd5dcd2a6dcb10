'use client';

import { useActionState } from 'react';
import { type ActionState, addTarget } from '@/lib/actions';

const initial: ActionState = { ok: true, message: '' };

export default function TargetForm() {
  const [state, action, pending] = useActionState(addTarget, initial);
  return (
    <form action={action} className="inline" style={{ marginTop: 10 }}>
      <label>
        Name
        <input name="name" required maxLength={64} placeholder="on-call" />
      </label>
      <label>
        Webhook URL
        <input
          name="url"
          type="url"
          required
          placeholder="https://hooks.example.com/…"
          style={{ minWidth: 280 }}
        />
      </label>
      <label>
        Format
        <select name="kind" defaultValue="json">
          <option value="json">generic JSON</option>
          <option value="slack">Slack-compatible</option>
        </select>
      </label>
      <button type="submit" className="btn" disabled={pending}>
        Add target
      </button>
      {state.message ? <span className={`msg ${state.ok ? 'good' : 'bad'}`}>{state.message}</span> : null}
    </form>
  );
}
