/** Real-time factor: processing time per second of audio (below 1 is faster than real time). */
export function rtf(processingMs: number, audioSeconds: number): number {
  if (audioSeconds <= 0) throw new RangeError('audio duration must be positive');
  return processingMs / 1000 / audioSeconds;
}

export interface RtfSummary {
  runs: number;
  audioSeconds: number;
  processingMs: number;
  /** Total processing time over total audio time. */
  rtf: number;
}

export function summarize(samples: Array<{ ms: number; audioSeconds: number }>): RtfSummary {
  const ms = samples.reduce((s, x) => s + x.ms, 0);
  const audio = samples.reduce((s, x) => s + x.audioSeconds, 0);
  return { runs: samples.length, audioSeconds: audio, processingMs: ms, rtf: rtf(ms, audio) };
}
