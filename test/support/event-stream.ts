import { IncomingHttpHeaders, request } from 'node:http';

export interface StreamEvent {
  event: string;
  data: unknown;
}

export interface EventStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of a non-stream answer (a 401 or 400), parsed as JSON. */
  body?: unknown;
  events: StreamEvent[];
  /** Resolves with the next event of that name (already received or still to come). */
  next(name: string, timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves when the server ends the stream. */
  closed: Promise<void>;
  close(): void;
}

/** Opens a server-sent event stream as a browser's EventSource would, and parses what arrives. */
export function openEventStream(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const events: StreamEvent[] = [];
      const waiters: (() => void)[] = [];
      let buffer = '';
      let closeResolve!: () => void;
      const closed = new Promise<void>((r) => (closeResolve = r));
      const taken = new Set<StreamEvent>();
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) events.push({ event, data: JSON.parse(data.join('\n')) });
          waiters.splice(0).forEach((w) => w());
        }
      });
      res.on('end', closeResolve);
      res.on('close', closeResolve);
      const stream: EventStream = {
        status: res.statusCode!,
        headers: res.headers,
        events,
        closed,
        close: () => req.destroy(),
        next: (name, timeoutMs = 10000) =>
          new Promise((resolveEvent, rejectEvent) => {
            const timer = setTimeout(() => rejectEvent(new Error(`no "${name}" event within ${timeoutMs} ms; got ${JSON.stringify(events)}`)), timeoutMs);
            const look = () => {
              const found = events.find((e) => e.event === name && !taken.has(e));
              if (!found) return waiters.push(look);
              taken.add(found);
              clearTimeout(timer);
              resolveEvent(found);
            };
            look();
          }),
      };
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
        let text = '';
        res.removeAllListeners('data');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          try {
            stream.body = JSON.parse(text);
          } catch {
            stream.body = text;
          }
          resolve(stream);
        });
        return;
      }
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
