'use strict';
/**
 * A `node --test` reporter (issue 40): one JSON line per finished test, suite or file summary, for
 * scripts/test-verdict.js. TAP alone hides what the verdict must see: a suite whose `after` hook failed
 * (node counts no failure), a failing todo, a skipped describe (not in `# skipped`), and which files
 * ended with their own summary (a file whose process exited part-way, or that registered no test, has none).
 */
module.exports = async function* testEvents(source) {
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:summary') {
      yield `${JSON.stringify({ event: 'summary', file: data.file ?? null, counts: data.counts, success: data.success })}\n`;
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const error = data.details?.error;
      yield `${JSON.stringify({
        event: event.type === 'test:pass' ? 'pass' : 'fail',
        file: data.file ?? null,
        name: data.name,
        nesting: data.nesting,
        kind: data.details?.type ?? 'test',
        skip: data.skip,
        todo: data.todo,
        failureType: error?.failureType,
        error: error ? String(error.cause?.message ?? error.message ?? error).split('\n')[0].slice(0, 300) : undefined,
      })}\n`;
    }
  }
};
