import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API } from 'typescript/unstable/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The public surface, pinned: every entry of `package.json` `exports` with the names it exports, runtime values
 * and type-only names apart. A name added, removed or moved between entries changes `api-report.md`, so growth is
 * a reviewed diff (`npx vitest run test/api -u` rewrites it after a deliberate change).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  exports: Record<string, string | { default: string }>;
};

/** Each subpath's source entry: `./dist/otel/semconv.js` → `src/otel/semconv.ts`. */
const entries = Object.entries(manifest.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .map(([subpath, target]) => {
    const built = typeof target === 'string' ? target : target.default;
    return { subpath, source: built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts') };
  });

let api: API | undefined;
let exportsOf: (source: string) => string[];

beforeAll(() => {
  api = new API({ cwd: root });
  const [project] = api.updateSnapshot({ openProject: `${root}tsconfig.json` }).getProjects();
  if (!project) throw new Error('the middleware project did not open');
  exportsOf = (source) => {
    const file = project.program.getSourceFile(`${root}${source}`);
    const symbol = file && project.checker.getSymbolAtLocation(file);
    if (!symbol) throw new Error(`${source}: not a module of the project`);
    return project.checker.getExportsOfModule(symbol).map((s) => s.name);
  };
}, 60_000);

afterAll(() => api?.close());

describe('the public API', () => {
  it('exports exactly the names of api-report.md from each entry', async () => {
    const sections: string[] = [];
    for (const { subpath, source } of entries) {
      const values = Object.keys(await import(`${root}${source}`)).sort();
      const types = exportsOf(source)
        .filter((name) => !values.includes(name))
        .sort();
      const lines = [...values.map((v) => `- \`${v}\``), ...types.map((t) => `- type \`${t}\``)];
      sections.push(
        `## \`${subpath}\`: ${values.length} values, ${types.length} types\n\n${lines.join('\n')}\n`,
      );
    }
    const report = `# Public API of @mcp-resilience/middleware\n\nWritten by \`test/api/apiReport.test.ts\`; review every change.\n\n${sections.join('\n')}`;
    await expect(report).toMatchFileSnapshot('./api-report.md');
  });

  it('has a source entry for every subpath', () => {
    expect(entries.map((e) => e.subpath)).toContain('./testing');
    for (const { source } of entries) expect(() => readFileSync(`${root}${source}`)).not.toThrow();
  });
});
