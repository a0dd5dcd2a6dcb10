import { describe, expect, it } from 'vitest';
import { listFiles, readText, readYaml } from './support/repo.js';

const yamlFiles = [
  'docker-compose.yml',
  ...['otel-collector', 'prometheus', 'alertmanager'].flatMap((dir) =>
    listFiles(dir).filter((f) => /\.ya?ml$/.test(f)),
  ),
];

describe('YAML files', () => {
  it('finds the deployment files', () => {
    expect(yamlFiles).toEqual(
      expect.arrayContaining([
        'docker-compose.yml',
        'otel-collector/config.yaml',
        'prometheus/prometheus.yml',
        'prometheus/rules/mcp-resilience.rules.yml',
        'alertmanager/alertmanager.yml',
      ]),
    );
    expect(yamlFiles.filter((f) => f.startsWith('prometheus/tests/')).length).toBeGreaterThan(0);
  });

  it.each(yamlFiles)('%s parses without errors, warnings or duplicate keys, to a mapping', (file) => {
    const doc = readYaml<unknown>(file, { merge: file === 'docker-compose.yml' });
    expect(doc).toBeTypeOf('object');
    expect(doc).not.toBeNull();
    expect(Array.isArray(doc)).toBe(false);
  });

  it('has no tab characters (YAML forbids them for indentation)', () => {
    for (const file of yamlFiles) expect(readText(file), file).not.toMatch(/\t/);
  });
});
