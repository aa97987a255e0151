import path from 'node:path';

/** Adult-content probability of an image, 0..1. */
export interface NsfwClassifier {
  /** `rgb`: row-major RGB bytes of a `width` x `height` image. */
  score(rgb: Uint8Array, width: number, height: number): Promise<number>;
  close(): Promise<void>;
}

const INPUT = 224;
const ADULT_CLASSES = new Set(['Porn', 'Hentai', 'Sexy']);

/**
 * nsfwjs with its bundled MobileNetV2 weights (inside the npm package, nothing downloaded) on the
 * tfjs WebAssembly backend, loaded once per process. Inputs are resized to 224x224 with sharp.
 */
export async function loadNsfwjsClassifier(): Promise<NsfwClassifier> {
  // Loaded lazily: tfjs is large and only the media service needs it.
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const sharp = (await import('sharp')).default;
  wasm.setWasmPaths(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + path.sep);
  await tf.setBackend('wasm');
  await tf.ready();
  const nsfwjs = await import('nsfwjs');
  const model = await nsfwjs.load('MobileNetV2');
  return {
    async score(rgb, width, height) {
      const pixels = await sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), { raw: { width, height, channels: 3 } })
        .resize(INPUT, INPUT, { fit: 'fill' })
        .raw()
        .toBuffer();
      const input = tf.tensor3d(new Int32Array(pixels), [INPUT, INPUT, 3], 'int32');
      try {
        const predictions = await model.classify(input, 5);
        return Math.min(
          1,
          predictions.filter((p) => ADULT_CLASSES.has(p.className)).reduce((sum, p) => sum + p.probability, 0),
        );
      } finally {
        input.dispose();
      }
    },
    async close() {
      model.dispose();
    },
  };
}
