import { fmtPct } from '../format';
import { CANARY_RULE } from './canary-rule';

/**
 * An alert's value as the Alerts page prints it, in its own unit: the retry-efficiency rule's is the long
 * window's efficiency ("4.3%"), the canary's the candidate's difference from the control in percentage points
 * ("-4.7 pts", not a share); Alertmanager's alerts carry none ("").
 */
export function fmtAlertValue(alert: { readonly key: string; readonly value: number | null }): string {
  if (alert.value === null) return '';
  if (alert.key.startsWith(`${CANARY_RULE.id}{`)) {
    return `${alert.value > 0 ? '+' : ''}${(alert.value * 100).toFixed(1)} pts`;
  }
  return fmtPct(alert.value);
}
