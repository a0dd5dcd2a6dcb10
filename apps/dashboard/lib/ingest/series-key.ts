import { hash } from 'node:crypto';
import type { Attrs } from '../otlp/model';
import { stableKey } from './ingest-context';

/*
 * The key of a cumulative series (its row in `cumulative_state`): a SHA-256 of what identifies it, so a key is
 * 45 bytes whatever the attributes (128 resource attributes of 1 KiB made every key of their series 130 KB, and
 * 400 such series ~200 MB of database per request). The resource part is digested once per resource, then
 * each point's key is one SHA-256 of a short string.
 */

/** Keys of the current format start with this (older keys were the identifying text itself). */
export const HASHED_PREFIX = 'h:';

const digest = (text: string) => hash('sha256', text, 'base64url');

/** What identifies a series once its resource is digested (one short string per point, hashed in one call). */
const identity = (resourceDigest: string, metric: string, scope: string, attrsKey: string) =>
  `${resourceDigest}\u0000${JSON.stringify([metric, scope])}\u0000${attrsKey}`;

/** The series keys of one resource (its `stableKey`): `key(metric, scope, pointAttributes)`. */
export function seriesKeys(resourceKey: string): (metric: string, scope: string, attrs: Attrs) => string {
  const resource = digest(resourceKey);
  return (metric, scope, attrs) =>
    HASHED_PREFIX + digest(identity(resource, metric, scope, stableKey(attrs)));
}

/**
 * The hashed key of a key of the older format (`metric \0 resource \0 scope \0 attributes`), or undefined when
 * it cannot be split unambiguously (a NUL inside one of its parts).
 */
export function rehashedKey(old: string): string | undefined {
  const parts = old.split('\u0000');
  if (parts.length !== 4) return undefined;
  const [metric, resourceKey, scope, attrsKey] = parts as [string, string, string, string];
  return HASHED_PREFIX + digest(identity(digest(resourceKey), metric, scope, attrsKey));
}
