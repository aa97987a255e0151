import { ChatMessage, ContentPart } from '@svc/contracts';

/**
 * A user turn with a text part and an image part (a data URL, never decoded), as the gateway
 * hands it to the chat service: for the capability checks and the upstream pass-through tests.
 */
export function imageMessage(text = 'see'): ChatMessage & { parts: ContentPart[] } {
  return {
    role: 'user',
    content: text,
    parts: [
      { type: 'text', text },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
    ],
  };
}
