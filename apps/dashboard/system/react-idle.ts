import type { Page } from 'playwright-core';

interface Watched {
  __reactRoots?: Set<{ pendingLanes: number }>;
  __REACT_DEVTOOLS_GLOBAL_HOOK__?: unknown;
}

/**
 * Makes every document `page` loads keep the React roots it commits, through the hook React calls on each
 * commit (the one React DevTools installs; production builds call it too). Call before the page is opened.
 */
export async function watchReactCommits(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as Watched;
    const roots = new Set<{ pendingLanes: number }>();
    const renderers = new Map<number, unknown>();
    w.__reactRoots = roots;
    w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      renderers,
      supportsFiber: true,
      isDisabled: false,
      inject(renderer: unknown) {
        renderers.set(renderers.size + 1, renderer);
        return renderers.size;
      },
      checkDCE() {},
      onScheduleFiberRoot() {},
      onCommitFiberUnmount() {},
      onPostCommitFiberRoot() {},
      onCommitFiberRoot(_id: number, root: { pendingLanes: number }) {
        roots.add(root);
      },
    };
  });
}

/**
 * Waits (on the page's state, polled each frame) until React has committed and no root has work left: after
 * `openPage` (every streamed boundary revealed, so each one's hydration is scheduled on its root), that is the
 * end of the hydration, and React reports what it recovered from (hydration errors) in the commit that ends it,
 * before this resolves.
 */
export async function waitForReactIdle(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const roots = (window as unknown as Watched).__reactRoots;
    return roots !== undefined && roots.size > 0 && [...roots].every((r) => r.pendingLanes === 0);
  });
}
