/**
 * Work held until the end of the current turn of the event loop (a setImmediate: the check phase that follows
 * the poll phase in which the requests were read), then run in the order it was held. ApiResponse hands its
 * answers' `end()` here so that the answers of one turn reach their sockets together instead of one by one
 * between the reads: on this 2-core VM a socket write that must wake the client's thread cost 15–40 µs of
 * system time, and answers written in one burst wake it once (issue 43, fifth part; Netty's
 * FlushConsolidationHandler does the same, flushing once the read loop is done).
 * Work held during a check phase itself (SQLite's lookups answer in LookupBatches' setImmediate) runs in the
 * next one, after the next poll phase: what that phase reads that cannot wait (a client's end of stream, which
 * Node.js answers by closing the socket) calls `runHeldNow()` first. The held work runs in the async context
 * of the first work held in its turn (one setImmediate serves them all).
 */
let actions: (() => void)[] = [];
let failures: ((err: unknown) => void)[] = [];

/** Runs `action` at the end of this turn, after what was held before it; `failed` hears what it throws. */
export function atTurnEnd(action: () => void, failed: (err: unknown) => void): void {
  failures.push(failed);
  if (actions.push(action) === 1) setImmediate(runHeld);
}

/** One action's error is its own: the rest of the turn's actions still run, and the process stays up. */
function runHeld(): void {
  const run = actions;
  const failed = failures;
  actions = [];
  failures = [];
  for (let i = 0; i < run.length; i++) {
    try {
      run[i]();
    } catch (err) {
      failed[i](err);
    }
  }
}

/** Runs what is held now, in order (before a socket that holds answers is ended or destroyed). */
export function runHeldNow(): void {
  if (actions.length) runHeld();
}
