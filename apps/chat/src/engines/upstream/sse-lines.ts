import { createParser, EventSourceMessage } from 'eventsource-parser';

/**
 * The `data` payloads of a byte stream of Server-Sent Events, parsed by eventsource-parser (the
 * whole SSE grammar: events split across chunks, CRLF/CR/LF line endings, multi-line data,
 * comments and other fields). eventsource-parser 3 is its last CommonJS release.
 */
export async function* sseData(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event: EventSourceMessage) => ready.push(event.data) });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (ready.length) yield ready.shift()!;
  }
  // A last event without its blank line still counts (some servers end the body right after it).
  parser.feed(decoder.decode() + '\n\n');
  while (ready.length) yield ready.shift()!;
}
