/** How one attempt ended. Plain data: the attempt stage never throws. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };
