/** A fault plan that cannot be used. The message starts with the path of the bad field, e.g. `plan.faults[2].probability`. */
export class PlanError extends Error {
  override readonly name = 'PlanError';

  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}
