import type { ServiceProcess } from './service-process';

/**
 * Counting what the service logged (one JSON line per event), for tests that prove how many requests of a
 * race took which path: the log is where a refused winner and a refused loser differ.
 */

/** Where each node's log stands now, so that eventsSince counts only what a step adds. */
export function logMarks(nodes: ServiceProcess[]): number[] {
  return nodes.map((node) => node.output.join('').length);
}

/** How many times each of `events` occurs in log text (one JSON line per event). */
export function countEvents(text: string, events: string[]): Record<string, number> {
  return Object.fromEntries(events.map((event) => [event, text.split(`"event":"${event}"`).length - 1]));
}

/**
 * The count of each of `events` the nodes logged since `marks`, once together they reach `total` (or after
 * 10 s, so that a missing event fails the assertion that follows instead of hanging): a request's log line
 * comes through the node's stdout pipe, apart from its answer, and may arrive a little after it.
 */
export async function eventsSince(nodes: ServiceProcess[], marks: number[], events: string[], total: number): Promise<Record<string, number>> {
  for (let waited = 0; ; waited += 20) {
    const text = nodes.map((node, i) => node.output.join('').slice(marks[i])).join('\n');
    const counts = countEvents(text, events);
    if (Object.values(counts).reduce((a, b) => a + b, 0) >= total || waited >= 10_000) return counts;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
