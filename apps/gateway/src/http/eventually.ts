/** A value at hand, or a promise of it while it must be fetched: the cached path then costs no promise and no microtask turn. */
export type Eventually<T> = T | Promise<T>;

/** `then(value)`, at once when the value is at hand. */
export const andThen = <T, R>(value: Eventually<T>, then: (value: T) => Eventually<R>): Eventually<R> =>
  value instanceof Promise ? value.then(then) : then(value);

/** Ends a callback hook: `finish(value)` once the value is at hand, `done(error)` if the promise of it fails. */
export function endHook<T>(value: Eventually<T>, finish: (value: T) => void, done: (error: Error) => void): void {
  if (value instanceof Promise) value.then(finish, done);
  else finish(value);
}
