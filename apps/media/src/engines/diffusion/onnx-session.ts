/**
 * The slice of onnxruntime-node the engine uses, so the engine compiles and is unit-tested without
 * the package, and tests can substitute a fake session.
 */
export interface DenoiserInputs {
  x: Float32Array;
  t: Float32Array;
  tokens: BigInt64Array;
  batch: number;
  size: number;
  maxTokens: number;
}

export interface DenoiserSession {
  /** Predicted noise for each image of the batch, [batch, 3, size, size]. */
  run(inputs: DenoiserInputs): Promise<Float32Array>;
  release(): Promise<void>;
}

export type DenoiserSessionFactory = (modelPath: string, threads: number) => Promise<DenoiserSession>;

interface OrtTensor {
  data: unknown;
}
interface OrtModule {
  Tensor: new (type: string, data: unknown, dims: number[]) => OrtTensor;
  InferenceSession: {
    create(path: string, options: object): Promise<{ run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>; release(): Promise<void> }>;
  };
}

/** Loads onnxruntime-node lazily (CommonJS require works for it), with a clear error when it is missing. */
export const onnxRuntimeSessionFactory: DenoiserSessionFactory = async (modelPath, threads) => {
  let ort: OrtModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ort = require('onnxruntime-node') as OrtModule;
  } catch {
    throw new Error('onnxruntime-node is not installed: the ONNX image engine needs it (npm install onnxruntime-node)');
  }
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  return {
    async run(i) {
      const out = await session.run({
        x: new ort.Tensor('float32', i.x, [i.batch, 3, i.size, i.size]),
        t: new ort.Tensor('float32', i.t, [i.batch]),
        tokens: new ort.Tensor('int64', i.tokens, [i.batch, i.maxTokens]),
      });
      return out.eps.data as Float32Array;
    },
    release: () => session.release(),
  };
};
