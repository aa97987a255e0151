import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { InlineOrBlob } from '../schemas/inline-or-blob';

/** `POST /audio/voices`: clone a voice from a sample, for one speech model. */
export interface CloneVoiceRequest {
  caller: CallerContext;
  /** The speech model (catalog id) the handle is for. */
  model: string;
  /** The voice sample as uploaded. */
  audio: InlineOrBlob;
  billing?: RequestBilling;
}

export interface CloneVoiceReply {
  /** `vv_<id>`: passed back as `voice` on `POST /audio/speech` with the same model. */
  id: string;
  model: string;
}
