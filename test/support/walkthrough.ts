import assert from 'node:assert/strict';

/**
 * Reading docs/walkthrough.md as a test: its `sh` blocks are the commands, the `http` block after
 * each is the answer to expect. Answers are abridged: the status lines must all match, the headers
 * shown must be present, the JSON shown must be contained in the body; `<…>` matches any value.
 */
export interface WalkthroughStep {
  section: string;
  command: string;
  expected?: string;
}

export function parseWalkthrough(markdown: string): WalkthroughStep[] {
  const steps: WalkthroughStep[] = [];
  let section = '';
  let fence: { info: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (fence) {
      if (line.startsWith('```')) {
        const text = fence.lines.join('\n');
        if (fence.info === 'sh') steps.push({ section, command: text });
        if (fence.info === 'http') {
          const last = steps[steps.length - 1];
          assert.ok(last && last.expected === undefined, `an http block without its sh block in "${section}"`);
          last.expected = text;
        }
        fence = undefined;
      } else fence.lines.push(line);
    } else if (line.startsWith('```')) fence = { info: line.slice(3).trim(), lines: [] };
    else if (line.startsWith('## ')) section = line.slice(3).trim();
  }
  return steps;
}

export interface HttpResponse {
  status: number;
  headers: [string, string][];
}

/** Splits `HTTP/1.1 200 OK` sections (curl's -D / -i output) from the body that follows the last one. */
export function splitResponses(text: string): { responses: HttpResponse[]; body: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const responses: HttpResponse[] = [];
  let i = 0;
  while (i < lines.length && /^HTTP\/[\d.]+ \d{3}/.test(lines[i])) {
    const response: HttpResponse = { status: Number(lines[i].split(' ')[1]), headers: [] };
    for (i++; i < lines.length && lines[i] !== ''; i++) {
      const colon = lines[i].indexOf(':');
      response.headers.push([lines[i].slice(0, colon).trim(), lines[i].slice(colon + 1).trim()]);
    }
    responses.push(response);
    while (i < lines.length && lines[i] === '') i++;
  }
  return { responses, body: lines.slice(i).join('\n').trim() };
}

const PLACEHOLDER = /<[^<>]+>/g;

function isPlaceholder(value: unknown): boolean {
  return typeof value === 'string' && /^<[^<>]+>$/.test(value);
}

/** A header value as written in the walkthrough, with `<…>` matching any non-empty text. */
function headerPattern(expected: string): RegExp {
  const parts = expected.split(PLACEHOLDER).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

/** `expected` is contained in `actual`: objects by the keys shown, arrays element by element. */
export function assertContains(actual: unknown, expected: unknown, path = 'body'): void {
  if (isPlaceholder(expected)) {
    assert.ok(actual !== undefined && actual !== null && actual !== '', `${path}: expected a value`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected a list, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((item, index) => assertContains(actual[index], item, `${path}[${index}]`));
  } else if (expected && typeof expected === 'object') {
    assert.ok(actual && typeof actual === 'object', `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [key, value] of Object.entries(expected)) {
      assertContains((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    }
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

/** Checks what curl received (`headers`: the -D dumps of every call; `stdout`: what it printed). */
export function assertAnswer(expectedText: string, headers: string, stdout: string): void {
  const expected = splitResponses(expectedText);
  const printed = splitResponses(stdout);
  // A command that prints the headers itself (-D -) leaves the dump empty.
  const received = headers.trim() ? splitResponses(headers).responses : printed.responses;
  assert.deepEqual(
    received.map((r) => r.status),
    expected.responses.map((r) => r.status),
    `status lines: got ${received.map((r) => r.status).join(', ')}`,
  );
  expected.responses.forEach((response, index) => {
    for (const [name, value] of response.headers) {
      const pattern = headerPattern(value);
      const candidates = received[index].headers.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
      assert.ok(candidates.some((v) => pattern.test(v)), `header ${name}: ${value}; got ${JSON.stringify(candidates)}`);
    }
  });
  if (expected.body) {
    let actual: unknown;
    try {
      actual = JSON.parse(printed.body);
    } catch {
      assert.fail(`the answer's body is not JSON: ${printed.body.slice(0, 300)}`);
    }
    assertContains(actual, JSON.parse(expected.body));
  }
}
