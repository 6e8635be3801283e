import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one of Node.js's own `process.nextTick` objects alive for the life of the process (issue 43, fourth
 * part; docs/decisions.md "Where a ping's time goes now").
 *
 * `nextTick` builds each tick as `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`. V8
 * caches that literal's computed keys by the object's hidden class ("map") and turns the cache megamorphic, for
 * good, the first time it sees another map (V8's `Runtime_DefineKeyedOwnPropertyInLiteral`, deps/v8/src/runtime/
 * runtime-object.cc); optimized code then calls the runtime for both keys of every tick. Between requests no tick
 * is alive, so a full collection during start-up can free those maps and the next tick makes new ones. Measured
 * here: a `nextTick` cost 450–800 ns in the started service against 50–140 ns in an empty Nest app, and a ping
 * makes about a dozen ticks. Holding one tick keeps its maps (and the ones it was built from) alive, so the cache
 * stays on one map: 100–125 ns a tick. Imported first by main.ts, before a collection can run.
 *
 * The tick is the resource `executionAsyncResource()` returns inside a `nextTick` callback (Node.js documents
 * it as the resource of the current execution); `tick-shape.spec.ts` fails if it stops being the tick.
 */
let kept: object | undefined;

process.nextTick(() => {
  kept = executionAsyncResource();
});

/** The tick kept alive (undefined until the first tick ran). */
export function keptTick(): object | undefined {
  return kept;
}
