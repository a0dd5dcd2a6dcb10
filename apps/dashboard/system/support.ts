import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const APP_DIR = path.resolve(import.meta.dirname, '..');
export const ARTIFACTS = path.join(APP_DIR, 'artifacts');
const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Navigates and waits until every streamed Suspense boundary has been revealed (app/loading.tsx makes each page
 * stream): until then React keeps the page's content twice, once in a hidden `S:` segment, and locators race.
 */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => !document.querySelector('div[hidden][id^="S:"], template[id^="B:"]'));
}

export interface Dashboard {
  readonly url: string;
  readonly process: ChildProcess;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts the built dashboard (dist/server.mjs + .next) on 127.0.0.1 with an ephemeral port and a fresh data dir. */
export async function startDashboard(env: Record<string, string> = {}): Promise<Dashboard> {
  const server = path.join(APP_DIR, 'dist', 'server.mjs');
  if (!fs.existsSync(server) || !fs.existsSync(path.join(APP_DIR, '.next', 'BUILD_ID'))) {
    throw new Error('the dashboard is not built: run `npm run build -w apps/dashboard` first');
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-system-'));
  const child = spawn(process.execPath, [server], {
    cwd: APP_DIR,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => {
    output += c;
  });
  child.stderr!.on('data', (c) => {
    output += c;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dashboard did not start:\n${output}`)), 30_000);
    const check = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dashboard exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
