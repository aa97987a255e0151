/** Every kind of engine that calls a server outside the platform. */
export type UpstreamKind = 'chat' | 'embeddings' | 'moderation' | 'image' | 'speech' | 'transcription' | 'video';

/** How messages name the server ("The model server timed out."). */
export const SERVER_LABEL: Record<UpstreamKind, string> = {
  chat: 'model server',
  embeddings: 'model server',
  moderation: 'model server',
  image: 'image server',
  speech: 'audio server',
  transcription: 'audio server',
  video: 'video server',
};

/** The request field an upstream `context_length_exceeded` is about; absent: not a signal for that kind. */
export const CONTEXT_PARAM: Record<UpstreamKind, 'messages' | 'input' | undefined> = {
  chat: 'messages',
  embeddings: 'input',
  moderation: undefined,
  image: undefined,
  speech: undefined,
  transcription: undefined,
  video: undefined,
};
