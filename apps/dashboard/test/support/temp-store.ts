import { onTestFinished } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { tempDir } from './runtime';

/**
 * An embedded store in a fresh temporary directory (a day's retention, 100 calls and 100 attempts kept), closed
 * when the test ends, and its data source (600 s staleness). Call it inside a test.
 */
export function tempStore() {
  const store = new EmbeddedStore({
    dataDir: tempDir(),
    retentionMs: 86_400_000,
    maxCalls: 100,
    maxAttempts: 100,
  });
  onTestFinished(() => store.close());
  return { store, source: new EmbeddedSource(store, { staleMs: 600_000 }) };
}
