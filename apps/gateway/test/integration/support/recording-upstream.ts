import { RequestListener } from 'node:http';

export interface UpstreamCall {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
}

export interface RecordingUpstreamOptions {
  /** The text every completion answers with. */
  answer: string;
  /** Characters per streamed chunk, small so tags and markers split across chunks. */
  chunkSize: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * An OpenAI-compatible chat completions handler that records each request body into `calls` and
 * answers with a fixed text, streamed `chunkSize` characters per chunk with a final usage chunk.
 */
export function recordingUpstream(calls: UpstreamCall[], options: RecordingUpstreamOptions): RequestListener {
  const { answer, chunkSize, promptTokens, completionTokens } = options;
  return (req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as UpstreamCall;
      calls.push(body);
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      const base = { id: 'up-1', created: 1, model: body.model };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (choices: unknown[], extra: object = {}) =>
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`);
      for (let i = 0; i < answer.length; i += chunkSize) event([{ index: 0, delta: { content: answer.slice(i, i + chunkSize) }, finish_reason: null }]);
      event([{ index: 0, delta: {}, finish_reason: 'stop' }]);
      event([], { usage });
      res.end('data: [DONE]\n\n');
    });
  };
}
