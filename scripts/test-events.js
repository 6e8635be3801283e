'use strict';
const { inspect } = require('node:util');

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
        error: error ? describeError(error.cause ?? error) : undefined,
      })}\n`;
    }
  }
};

/** One value of a failed assertion on one line, cut to a length a summary line can carry. */
function oneLine(value) {
  const text = inspect(value, { depth: 4, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 200 });
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/**
 * A failure in one line for the run's summary: the error's first line and, for an assertion, what it expected
 * and what it got (issue 56: "Expected values to be strictly deep-equal:" alone said nothing). `assert.ok`'s
 * own true/false is left out; its message is the whole story.
 */
function describeError(err) {
  const first = String(err?.message ?? err).split('\n')[0].slice(0, 300);
  if (err?.code !== 'ERR_ASSERTION' || !('expected' in err) || (err.operator === '==' && err.expected === true)) return first;
  return `${first} (expected ${oneLine(err.expected)}, actual ${oneLine(err.actual)})`;
}
