/**
 * Binary audio crossing NATS: inline (base64) when it fits a message comfortably, else a blob id
 * in the shared blob store (libs/blob-store; NATS messages are capped at 1 MB). The receiver
 * takes (reads and deletes) the blob.
 */
export type AudioPayload = { base64: string } | { blobId: string; bytes: number };

/** Largest payload sent inline; bigger ones go through the blob store. */
export const MAX_INLINE_AUDIO_BYTES = 512 * 1024;
