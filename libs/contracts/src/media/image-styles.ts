import { ImageStyle } from './image-requests';

/**
 * The style presets of `GET /image/styles` (data shared by the gateway, which lists them, and the
 * media service, which applies them). `prompt` is a template: `{prompt}` is replaced by the
 * caller's prompt. The embedded zoo model knows only its training words (colours, shapes,
 * backgrounds, emoji names), so its presets lean on those; an upstream engine gets the same text.
 * The model reads the first 16 words, so styles put the caller's prompt first.
 */
export const IMAGE_STYLES: readonly ImageStyle[] = [
  { name: '3D Model', prompt: '{prompt}, 3d render, soft light, gray background' },
  { name: 'Analog Film', prompt: '{prompt}, analog film photo, grain, faded colours' },
  { name: 'Anime', prompt: '{prompt}, anime style, vivid colours, clean lines' },
  { name: 'Cinematic', prompt: '{prompt}, cinematic, dramatic light, black background', negativePrompt: 'white background' },
  { name: 'Comic Book', prompt: '{prompt}, comic book style, bold outlines, yellow background' },
  { name: 'Line Art', prompt: '{prompt}, line art, black on white background', negativePrompt: 'colour' },
  { name: 'Monochrome', prompt: '{prompt}, black and white, gray background', negativePrompt: 'red orange yellow green blue purple' },
  { name: 'Neon', prompt: '{prompt}, neon glow, purple and blue, black background', negativePrompt: 'white background' },
  { name: 'Pastel', prompt: '{prompt}, pastel colours, white background' },
  { name: 'Pixel Art', prompt: '{prompt}, pixel art, 8-bit, blue background' },
];

/** The preset by exact name (case-insensitive), or undefined. */
export function findStyle(name: string): ImageStyle | undefined {
  const lower = name.toLowerCase();
  return IMAGE_STYLES.find((s) => s.name.toLowerCase() === lower);
}

/** The prompt and negative prompt the engine receives for a preset. */
export function applyStyle(style: ImageStyle, prompt: string, negativePrompt: string | undefined): { prompt: string; negativePrompt: string | undefined } {
  const negative = [negativePrompt, style.negativePrompt].filter(Boolean).join(', ');
  return { prompt: style.prompt.replace('{prompt}', prompt), negativePrompt: negative || undefined };
}
