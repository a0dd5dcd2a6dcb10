'use server';

import { revalidatePath } from 'next/cache';
import { maskUrl } from './alerts/alert-store';
import { RuleValidationError, validateRule } from './alerts/rule';
import { resolveTarget } from './alerts/webhook-request';
import { getRuntime } from './runtime';

export interface ActionState {
  readonly ok: boolean;
  readonly message: string;
  readonly field?: string;
}

const minutes = (v: FormDataEntryValue | null) =>
  v === null || v === '' ? undefined : Math.round(Number(v) * 60_000);

/** Saves the edited alert rule (thresholds, windows, minimum volume, for). */
export async function saveRule(_prev: ActionState, form: FormData): Promise<ActionState> {
  const rt = getRuntime();
  const id = String(form.get('id') ?? '');
  const rule = rt.alertStore.rule(id);
  if (!rule) return { ok: false, message: `No rule '${id}'.` };
  try {
    const updated = validateRule(rule, {
      threshold: form.get('threshold') === null ? undefined : Number(form.get('threshold')),
      shortWindowMs: minutes(form.get('shortWindowMin')),
      longWindowMs: minutes(form.get('longWindowMin')),
      minRetries: form.get('minRetries') === null ? undefined : Number(form.get('minRetries')),
      forMs: minutes(form.get('forMin')),
      keepFiringForMs: minutes(form.get('keepFiringForMin')),
      enabled: form.get('enabled') === 'on',
      severity: form.get('severity') ?? undefined,
    });
    rt.alertStore.saveRule(updated);
    await rt.alerts.evaluate();
    revalidatePath('/alerts');
    return { ok: true, message: 'Rule saved.' };
  } catch (error) {
    if (error instanceof RuleValidationError)
      return { ok: false, message: error.message, field: error.field };
    throw error;
  }
}

/** Adds a webhook notification target (generic JSON or Slack-compatible). */
export async function addTarget(_prev: ActionState, form: FormData): Promise<ActionState> {
  const name = String(form.get('name') ?? '').trim();
  const url = String(form.get('url') ?? '').trim();
  const kind = form.get('kind') === 'slack' ? 'slack' : 'json';
  if (name === '' || name.length > 64)
    return { ok: false, message: 'Name: 1 to 64 characters.', field: 'name' };
  if (url.length > 2048) return { ok: false, message: 'URL: at most 2048 characters.', field: 'url' };
  const rt = getRuntime();
  // Checked again at every send (the name may resolve elsewhere by then): this only refuses early.
  const target = await resolveTarget(url, rt.targetPolicy, undefined, rt.config.limits.targetTimeoutMs);
  if (!target.ok) return { ok: false, message: `URL: ${target.reason}.`, field: 'url' };
  rt.alertStore.addTarget({ name, url, kind });
  revalidatePath('/alerts');
  return { ok: true, message: `Target ${name} (${maskUrl(url)}) added.` };
}

export async function removeTarget(form: FormData): Promise<void> {
  const id = Number(form.get('id'));
  if (Number.isInteger(id)) getRuntime().alertStore.removeTarget(id);
  revalidatePath('/alerts');
}
