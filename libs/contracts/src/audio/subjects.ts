import { StreamOpenReply } from '../stream/frames';
import { AudioJobRef, CompleteAudioReply, QueueAudioReply, QueueAudioRequest, RetrieveAudioReply, RetrieveAudioRequest } from './audio-jobs';
import { SpeechReply, SpeechRequest, StreamSpeechRequest } from './speech';
import { CloneVoiceReply, CloneVoiceRequest } from './voices';
import { ProbeAudioReply, ProbeAudioRequest, TranscribeReply, TranscribeRequest } from './transcription';

export const AUDIO = {
  SPEECH: 'audio.cmd.speech.v1',
  /** Opens an audio stream; chunk frames carry encoded audio bytes (docs/audio.md). */
  SPEECH_STREAM: 'audio.stream.speech.v1',
  PROBE: 'audio.cmd.probe.v1',
  TRANSCRIBE: 'audio.cmd.transcribe.v1',
  QUEUE: 'audio.cmd.queue.v1',
  RETRIEVE: 'audio.cmd.retrieve.v1',
  COMPLETE: 'audio.cmd.complete.v1',
  /** `POST /audio/voices`: a voice sample to a model whose engine clones voices. */
  CLONE_VOICE: 'audio.cmd.clone-voice.v1',
} as const;

export interface AudioRpc {
  [AUDIO.SPEECH]: { req: SpeechRequest; res: SpeechReply };
  [AUDIO.SPEECH_STREAM]: { req: StreamSpeechRequest; res: StreamOpenReply };
  [AUDIO.PROBE]: { req: ProbeAudioRequest; res: ProbeAudioReply };
  [AUDIO.TRANSCRIBE]: { req: TranscribeRequest; res: TranscribeReply };
  [AUDIO.QUEUE]: { req: QueueAudioRequest; res: QueueAudioReply };
  [AUDIO.RETRIEVE]: { req: RetrieveAudioRequest; res: RetrieveAudioReply };
  [AUDIO.COMPLETE]: { req: AudioJobRef; res: CompleteAudioReply };
  [AUDIO.CLONE_VOICE]: { req: CloneVoiceRequest; res: CloneVoiceReply };
}
