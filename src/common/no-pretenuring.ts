import { setFlagsFromString } from 'node:v8';

/**
 * Turns V8's allocation-site pretenuring off for the service process, before anything else is loaded (issue 43,
 * ninth part; docs/decisions.md "What V8's pretenuring kept alive").
 *
 * V8 counts, per object or array literal in the code (an "allocation site"), how many of its objects survive a
 * young-generation collection; a site whose objects mostly survive (≥ 85 % of ≥ 100, the young generation at its
 * largest: deps/v8/src/heap/pretenuring-handler.cc) allocates in the old generation from then on, for good. During
 * start-up nearly everything survives: about fifty sites switched before the service's port opened
 * (`--trace-pretenuring-statistics`). A pointer from an old object into the young generation keeps its target alive
 * in a young collection even when the old object is itself garbage; under load every authenticated request's
 * objects survived and were promoted: 9–12 % of each scavenge under `wrk -t1 -c32` (0.6–2.3 % without
 * pretenuring, as a ping), scavenges of 2.3–3.5 ms instead of 0.6, a full collection every 2–3 s, peak memory
 * 350–410 MiB instead of 200. Which literal starts it was not pinned down. A request server's objects die young;
 * start-up's few long-lived ones cost a few more copies without it (start-up time measured unchanged).
 *
 * The flag is read where a young collection gathers its feedback (`PretenuringHandler::UpdateAllocationSite`,
 * deps/v8/src/heap/pretenuring-handler-inl.h), so set here, before any collection has run, no site is ever
 * switched. no-pretenuring.spec.ts checks that in a child process and in main.js itself.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
