import { mulberry32 } from './mulberry32.js';

/** JSON with the keys of every object sorted: the same arguments give the same text, whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A uniform draw in [0, 1) keyed by (seed, fault, call): the same tool and arguments get the same draw on every
 * attempt and on every repeat, so a fault drawn this way belongs to the call (bad arguments, a bad token), not to
 * one request.
 */
export function callDraw(seed: number, faultIndex: number, callKey: string): number {
  let h = 2166136261 ^ (seed >>> 0);
  for (const ch of `${faultIndex}|${callKey}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return mulberry32(h >>> 0)();
}
