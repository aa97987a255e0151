import { Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CHAT, StreamChatRequest, StreamEnd } from '@svc/contracts';
import { DomainError, ErrorStyle, openAiErrorBodyOf } from '@svc/errors';
import { Frame } from '@svc/messaging';
import { UsageReport } from '../admission/admission.types';
import { drained, takeOverResponse } from '../http/stream-relay';
import { takeRetryCount } from './retry-count';
import { ServiceStreamRelay } from './service-stream-relay';

/** How a relayed stream ended, for settlement: usage from the service, or what was sent before a cut. */
export interface RelayOutcome {
  usage: UsageReport | null;
}

/**
 * How the chat service's chunks are written to the client: as they are (`data:` lines, `[DONE]`)
 * for /chat/completions, or as another API's events (/responses). Each returns SSE text ('' for none).
 */
export interface StreamEncoder {
  /** One `chat.completion.chunk`, as the service's JSON. */
  chunk(json: string): string;
  /** The service ended the stream normally. */
  end(end: StreamEnd): string;
  /** The service failed after the first chunk (earlier failures are normal HTTP errors). */
  error(message: string, err: DomainError): string;
}

/**
 * /chat/completions: the chunks as they are, then `[DONE]`; a failure is an `{error}` data line,
 * its error a string or, with ERROR_STYLE=openai, OpenAI's `{message, type, param, code}`.
 */
export function chatCompletionChunks(style: ErrorStyle): StreamEncoder {
  return {
    chunk: (json) => `data: ${json}\n\n`,
    end: () => 'data: [DONE]\n\n',
    error: (message, err) => `data: ${JSON.stringify(style === 'openai' ? openAiErrorBodyOf(err) : { error: message })}\n\n`,
  };
}

/**
 * Relays a token stream from the chat service to the HTTP client as Server-Sent Events, chunk by
 * chunk, through an encoder. Errors before the first chunk become a normal HTTP error; later ones
 * the encoder's error event. When the client disconnects the service is told to stop generating.
 */
@Injectable()
export class SseStreamer extends ServiceStreamRelay {
  async relay(request: Omit<StreamChatRequest, 'stream'>, reply: FastifyReply, encoder: StreamEncoder): Promise<RelayOutcome> {
    const { reader, first } = await this.open(CHAT.STREAM, request);
    if (first.kind === 'chunk') first.body = takeRetryCount(reply, first.body);
    const raw = takeOverResponse(reply, reader, 'text/event-stream; charset=utf-8', { connection: 'keep-alive' });

    // Chunks sent: the first is the role chunk, so the count of content pieces is one less.
    let sent = 0;
    const cut = (): RelayOutcome => {
      reader.cancel();
      return { usage: { promptTokens: 0, completionTokens: Math.max(0, sent - 1), cut: true } };
    };
    // Frames that have already arrived go out together: one socket write, not one per chunk.
    let pending = '';
    let frame: Frame = first;
    for (;;) {
      if (raw.destroyed) return cut();
      if (frame.kind === 'chunk') {
        sent++;
        pending += encoder.chunk(Buffer.from(frame.body).toString('utf8'));
        const queued = reader.take();
        if (queued) {
          frame = queued;
          continue;
        }
        if (pending && !raw.write(pending)) await drained(raw);
        pending = '';
      } else if (frame.kind === 'end') {
        const end = JSON.parse(Buffer.from(frame.body).toString('utf8')) as StreamEnd;
        raw.end(pending + encoder.end(end));
        return { usage: { promptTokens: end.usage.prompt_tokens, completionTokens: end.usage.completion_tokens } };
      } else {
        raw.end(pending + encoder.error(frame.error.message, DomainError.fromPayload(frame.error)));
        return { usage: sent > 1 ? { promptTokens: 0, completionTokens: sent - 1, cut: true } : null };
      }
      frame = await reader.next();
    }
  }
}
