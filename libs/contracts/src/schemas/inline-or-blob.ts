import { z } from 'zod';
import { NATS_MAX_PAYLOAD_BYTES } from './inline-budget';
import { blobRefSchema } from './wire';

/**
 * Base64 characters one inline payload may take: half of NATS's `max_payload`. The other half is
 * headroom for the rest of the message (caller, billing, params, JSON keys), which is a few KiB
 * in every message that carries a payload, with room to spare for a change that adds fields.
 */
export const INLINE_PAYLOAD_MAX_CHARS = NATS_MAX_PAYLOAD_BYTES / 2;

/**
 * The one inline limit: bytes above it travel by blob (`packInlineOrBlob` in `@svc/blob-store`).
 * Base64 writes 3 bytes as 4 characters, so this is the most that encodes within
 * `INLINE_PAYLOAD_MAX_CHARS`: 384 KiB with NATS's default 1 MiB `max_payload`.
 */
export const INLINE_PAYLOAD_MAX_BYTES = (INLINE_PAYLOAD_MAX_CHARS / 4) * 3;

/**
 * Bytes in a message: inline (base64) when they fit the limit above, else a reference to a blob
 * in the shared blob store (`@svc/blob-store`), which the receiver takes (reads and deletes).
 * Every message that carries binary data or a large text uses this one shape.
 */
export type InlineOrBlob = { base64: string } | { blobId: string; bytes: number };

/**
 * Receivers accept inline payloads up to the bus's own maximum, not the senders' limit: a sender
 * of an earlier release (audio's limit was 512 KiB of bytes) still gets through during a rolling
 * upgrade, and NATS bounds the message anyway.
 */
export const inlineOrBlobSchema = z.union([z.looseObject({ base64: z.string().max(NATS_MAX_PAYLOAD_BYTES) }), blobRefSchema]);
