import { Injectable } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { AUDIO, SpeechRequest } from '@svc/contracts';
import { Frame } from '@svc/messaging';
import { ServiceStreamRelay } from '../chat/service-stream-relay';
import { drained, takeOverResponse } from '../http/stream-relay';

/**
 * Relays streamed speech to the HTTP client as raw audio bytes with chunked transfer encoding,
 * chunk by chunk as the audio service encodes it. An error before the first chunk is a normal
 * HTTP error; after it the response is cut (the status line has gone). A client that goes away
 * cancels synthesis.
 */
@Injectable()
export class AudioStreamer extends ServiceStreamRelay {
  /** Resolves `true` when the whole audio was delivered, `false` when the stream was cut. */
  async relay(request: SpeechRequest, contentType: string, reply: FastifyReply): Promise<boolean> {
    const { reader, first } = await this.open(AUDIO.SPEECH_STREAM, request);
    const raw = takeOverResponse(reply, reader, contentType);
    let frame: Frame = first;
    for (;;) {
      if (raw.destroyed) {
        reader.cancel();
        return false;
      }
      if (frame.kind === 'chunk') {
        if (!raw.write(Buffer.from(Buffer.from(frame.body).toString('utf8'), 'base64'))) await drained(raw);
      } else if (frame.kind === 'end') {
        raw.end();
        return true;
      } else {
        raw.destroy(new Error(frame.error.message));
        return false;
      }
      frame = await reader.next();
    }
  }
}
