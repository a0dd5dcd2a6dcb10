import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';

/*
 * The README's table of environment variables, checked against the configuration that reads them: every
 * variable read is listed and every listed one is read, and each default the table gives is the one in force
 * (the configuration with the variable set to its documented default equals the one without it).
 */

const APP = path.resolve(import.meta.dirname, '..');
const readme = fs.readFileSync(path.join(APP, 'README.md'), 'utf8');

/** The rows of the table under "## Environment variables": the variables of a row and its default cell. */
function tableRows(): Array<{ names: string[]; fallback: string }> {
  const lines = readme.slice(readme.indexOf('## Environment variables')).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start + 2, end).map((line) => {
    const [, variables = '', fallback = ''] = line.split('|').map((c) => c.trim());
    return { names: [...variables.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string), fallback };
  });
}

/** The variables the configuration reads, from its source: every name in quotes there is one (`'PORT'`). */
function variablesRead(): string[] {
  const source = fs.readFileSync(path.join(APP, 'lib/config.ts'), 'utf8');
  const quoted = [...source.matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)];
  const members = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)];
  return [...new Set([...quoted, ...members].map((m) => m[1] as string))].sort();
}

describe('the README environment table', () => {
  it('lists every variable the configuration reads, and no other', () => {
    const listed = tableRows().flatMap((r) => r.names);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(variablesRead());
  });

  it('gives the defaults in force', () => {
    const base = loadConfig({});
    let checked = 0;
    for (const { names, fallback } of tableRows()) {
      const value = /^`([^`]*)`/.exec(fallback)?.[1];
      if (value === undefined) {
        expect(fallback, names.join()).toMatch(/^unset\b/);
        continue;
      }
      for (const name of names) expect(loadConfig({ [name]: value }), `${name}=${value}`).toEqual(base);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});
