import { setFlagsFromString } from 'node:v8';

/**
 * Turns V8's allocation-site pretenuring off for the service process, before anything else is loaded (issue 43,
 * ninth part; docs/decisions.md "What start-up's pretenuring kept alive").
 *
 * V8 counts, per object or array literal in the code ("allocation site"), how many of its objects survive a
 * young-generation collection; a site whose objects mostly survive is switched to allocate in the old generation
 * for good (`PretenuringHandler`, deps/v8/src/heap/pretenuring-handler.cc: ≥ 85 % of ≥ 100). During start-up
 * nearly everything survives, and here about fifty sites were switched before the port opened (`--trace-pretenuring`).
 * Sites shared with the request path then put per-request objects in the old generation, where a young collection
 * counts each pointer from them as live: every request's objects, reachable from one of those dead old objects,
 * survived and were promoted. Measured under `wrk -t1 -c32` on an authenticated row: 9–12 % of each scavenge promoted
 * (0.8–1.3 % without pretenuring, as a ping), scavenges of 2.3–3.5 ms instead of 0.6, a full collection every
 * 2–3 s. A request server's objects die young; start-up's few long-lived ones cost a few more copies without it.
 *
 * The flag is read when a young collection gathers its feedback (`PretenuringHandler::UpdateAllocationSite`), so set
 * here, before any collection has run, no site is ever switched. `v8-settings.spec.ts` checks it is in effect.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
