/** `p`'s state, readable at any time: `done` once it settled, with its value (for tests on fake timers). */
export function watch<T>(p: Promise<T>) {
  const state: { done: boolean; value?: T } = { done: false };
  void p.then((value) => {
    state.done = true;
    state.value = value;
  });
  return state;
}
