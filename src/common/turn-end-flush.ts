/**
 * Work held until the end of the current turn of the event loop (a setImmediate: the check phase that follows
 * the poll phase in which the requests were read), then run in the order it was held. ApiResponse hands its
 * answers' `end()` here so that the answers of one turn reach their sockets together instead of one by one
 * between the reads: on this 2-core VM a socket write that must wake the client's thread cost 15–40 µs of
 * system time, and answers written in one burst wake it once (issue 43, fifth part; Netty's
 * FlushConsolidationHandler does the same, flushing once the read loop is done).
 * Work held during a check phase itself (SQLite's lookups answer in LookupBatches' setImmediate) runs in the
 * next one, after the next poll phase: what that phase reads that cannot wait (a client's end of stream, a
 * client error, a socket destroyed; `sendHeldEndsOn` in api-response.ts) calls `runHeldNow()` first. The held work runs in the async context
 * of the first work held in its turn (one setImmediate serves them all).
 */
interface Held {
  action: () => void;
  failed: (err: unknown) => void;
}
/** What is held, in order; `next` is the first not yet run (a run in progress, or a nested `runHeldNow()`). */
let held: Held[] = [];
let next = 0;
/** Runs in progress: a nested one only moves `next` on; the outermost lets the ran ones go. */
let depth = 0;
let scheduled = false;

/** Runs `action` at the end of this turn, after what was held before it; `failed` hears what it throws. */
export function atTurnEnd(action: () => void, failed: (err: unknown) => void): void {
  held.push({ action, failed });
  if (!scheduled) {
    scheduled = true;
    setImmediate(runAtTurnEnd);
  }
}

/**
 * The turn's end runs what was held before it. What its actions hold waits for the next turn's end: atTurnEnd
 * scheduled it (`scheduled` is cleared first), one immediate for all of it.
 */
function runAtTurnEnd(): void {
  scheduled = false;
  runUpTo(held.length);
}

/** Runs what is held now, in order (before a socket that holds answers is ended or destroyed). */
export function runHeldNow(): void {
  runUpTo(held.length);
}

/**
 * One action's error is its own: the rest still run, and the process stays up. One queue and one cursor, so
 * that a `runHeldNow()` from inside an action (a socket destroyed by an answer's end) goes on with this run's
 * rest before what its actions held since, never ahead of it.
 */
function runUpTo(end: number): void {
  depth++;
  try {
    while (next < end) {
      const { action, failed } = held[next++];
      try {
        action();
      } catch (err) {
        failed(err);
      }
    }
  } finally {
    depth--;
  }
  if (depth === 0 && next > 0) {
    held = next === held.length ? [] : held.slice(next);
    next = 0;
  }
}
