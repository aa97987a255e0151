import { Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CHAT, StreamChatRequest, StreamEnd } from '@svc/contracts';
import { Frame } from '@svc/messaging';
import { UsageReport } from '../admission/admission.types';
import { drained, takeOverResponse } from '../http/stream-relay';
import { ServiceStreamRelay } from './service-stream-relay';

const DONE = 'data: [DONE]\n\n';

/** How a relayed stream ended, for settlement: usage from the service, or what was sent before a cut. */
export interface RelayOutcome {
  usage: UsageReport | null;
}

/**
 * Relays a token stream from a service to the HTTP client as Server-Sent Events, chunk by chunk.
 * Errors before the first chunk become a normal HTTP error; later ones an SSE error event.
 * When the client disconnects the service is told to stop generating.
 */
@Injectable()
export class SseStreamer extends ServiceStreamRelay {
  async relay(request: Omit<StreamChatRequest, 'stream'>, reply: FastifyReply): Promise<RelayOutcome> {
    const { reader, first } = await this.open(CHAT.STREAM, request);
    const raw = takeOverResponse(reply, reader, 'text/event-stream; charset=utf-8', { connection: 'keep-alive' });

    // Chunks sent: the first is the role chunk, so the count of content pieces is one less.
    let sent = 0;
    const cut = (): RelayOutcome => {
      reader.cancel();
      return { usage: { promptTokens: 0, completionTokens: Math.max(0, sent - 1), cut: true } };
    };
    let frame: Frame = first;
    for (;;) {
      if (raw.destroyed) return cut();
      if (frame.kind === 'chunk') {
        sent++;
        if (!raw.write(`data: ${Buffer.from(frame.body).toString('utf8')}\n\n`)) await drained(raw);
      } else if (frame.kind === 'end') {
        raw.end(DONE);
        const { usage } = JSON.parse(Buffer.from(frame.body).toString('utf8')) as StreamEnd;
        return { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } };
      } else {
        raw.end(`data: ${JSON.stringify({ error: frame.error.message })}\n\n`);
        return { usage: sent > 1 ? { promptTokens: 0, completionTokens: sent - 1, cut: true } : null };
      }
      frame = await reader.next();
    }
  }
}
