/*
 * Writes one generated section of docs/benchmarks.md between its markers (`<!-- bench:NAME -->`), appended when
 * absent, and formats the file (and any `also` files) with the repository's Biome, so the root lint stays clean.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs');

const SECTION = /<!-- bench:([\w-]+) -->[\s\S]*?<!-- \/bench:\1 -->/g;

/**
 * `markdown` with the generated sections of `previous` (docs/benchmarks.md before it is rewritten) that it lacks,
 * appended in their order: a partial run that renders the document again keeps what only the full run writes.
 */
export function keepSections(previous: string, markdown: string): string {
  const missing = [...previous.matchAll(SECTION)].filter(
    ([, name]) => !markdown.includes(`<!-- bench:${name} -->`),
  );
  return missing.length
    ? `${markdown.trimEnd()}\n\n${missing.map(([block]) => block).join('\n\n')}\n`
    : markdown;
}

export function writeDocsSection(name: string, section: string, also: readonly string[] = []): void {
  const file = join(DOCS, 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const marked = new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
  const block = `<!-- bench:${name} -->\n${section}\n<!-- /bench:${name} -->`;
  writeFileSync(
    file,
    marked.test(text) ? text.replace(marked, () => block) : `${text.trimEnd()}\n\n${block}\n`,
  );
  const biome = join(
    dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')),
    'bin',
    'biome',
  );
  execFileSync(process.execPath, [biome, 'format', '--write', file, ...also], { stdio: 'pipe' });
}
