import { createHash } from 'node:crypto';
import { ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';

/** A model's `constraints.voice_cloning` (the reference's TTS Voice Cloning block), when it clones. */
export interface VoiceCloning {
  mode: string;
  accepted_formats: string[];
  min_sample_seconds: number;
  retention_days: number;
}

export function cloningOf(model: ModelDefinition): VoiceCloning | undefined {
  const value = model.constraints.voice_cloning;
  if (!value || typeof value !== 'object') return undefined;
  const formats = (value as { accepted_formats?: unknown }).accepted_formats;
  return { ...(value as VoiceCloning), accepted_formats: Array.isArray(formats) ? formats.filter((f) => typeof f === 'string') : [] };
}

/** The 400 for a model whose engine has no voice cloning (the embedded Flite has built-in voices only). */
export function cannotClone(model: ModelDefinition): DomainError {
  const message = `${model.id} cannot clone voices: its engine only has built-in voices. Send the sample to a tts model whose model_spec lists voice_cloning (GET /api/v1/models?type=tts).`;
  return new DomainError(ErrorCode.Validation, message, { _errors: [], model: { _errors: [message] } });
}

/** A 400 about the uploaded sample (`file`). */
export function sampleError(message: string): DomainError {
  return new DomainError(ErrorCode.Validation, message, { _errors: [], file: { _errors: [message] } });
}

const CLONED_VOICE = /^vv_[0-9a-f]{24}$/;

/**
 * The name a cloned voice has on the upstream's voice library: the handle bound to the account
 * that cloned it. The client only ever sees the handle; another account holding the same handle
 * names a voice the upstream does not have, so a leaked handle speaks no one else's voice.
 * Built-in voice names pass through unchanged.
 */
export function upstreamVoice<V extends string | undefined>(voice: V, accountId: string): V {
  if (voice === undefined || !CLONED_VOICE.test(voice)) return voice;
  return `vv_${createHash('sha256').update(`${accountId}\n${voice}`).digest('hex').slice(0, 24)}` as V;
}
