/** A value now, or later. */
export type Awaitable<T> = T | PromiseLike<T>;

export function isPromiseLike<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/**
 * `fn(value)` now when the value is already there, after it resolves otherwise. The credential path of
 * every request is written with it, so a step that needs no database (a request without a bearer token
 * passing the bearer strategy, a malformed credential refused) costs no promise: every request runs the
 * strategies in order, and each promise cost several microseconds there (docs/decisions.md, "The front door").
 */
export function andThen<T, R>(value: Awaitable<T>, fn: (value: T) => Awaitable<R>): Awaitable<R> {
  return isPromiseLike(value) ? Promise.resolve(value).then(fn) : fn(value);
}
