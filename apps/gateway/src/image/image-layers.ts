import sharp from 'sharp';
import { DomainError } from '@svc/errors';
import { InputImage } from './image-input';

/**
 * Multi-edit's inputs as one image for the edit engine: the first image is the base; each further
 * image is a layer scaled to the base's size and drawn over it, in order. A layer with
 * transparency is drawn with its alpha (an overlay, a sticker, a mask's painted strokes); an opaque
 * layer is mixed in at half opacity, so it cannot hide the base outright. The result is a PNG.
 */
export async function composeLayers(images: InputImage[]): Promise<InputImage> {
  const [base, ...layers] = images;
  if (layers.length === 0) return base;
  const { width, height } = base;
  try {
    const overlays = await Promise.all(
      layers.map(async (layer) => ({
        // ensureAlpha adds the half-opaque channel only to a layer without one.
        input: await sharp(layer.bytes).rotate().ensureAlpha(0.5).resize(width, height, { fit: 'fill' }).raw().toBuffer(),
        raw: { width, height, channels: 4 as const },
      })),
    );
    const bytes = await sharp(base.bytes).rotate().resize(width, height, { fit: 'fill' }).composite(overlays).png().toBuffer();
    return { bytes, width, height, format: 'png' };
  } catch {
    throw DomainError.validation([{ path: ['images'], message: 'could not be decoded' }]);
  }
}
