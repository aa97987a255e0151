/** A parsed PCM WAV file: its format and the offset of its sample data. */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataOffset: number;
  dataBytes: number;
}

/** Reads the RIFF chunks of a WAV file; null when it is not one. */
export function parseWav(wav: Buffer): WavInfo | null {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') return null;
  let offset = 12;
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes'> | null = null;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 24 <= wav.length) {
      fmt = { channels: wav.readUInt16LE(offset + 10), sampleRate: wav.readUInt32LE(offset + 12), bitsPerSample: wav.readUInt16LE(offset + 22) };
    } else if (id === 'data') {
      if (!fmt) return null;
      const dataOffset = offset + 8;
      return { ...fmt, dataOffset, dataBytes: Math.min(size, wav.length - dataOffset) };
    }
    offset += 8 + size + (size % 2);
  }
  return null;
}

/** The sample bytes of a WAV file (signed 16-bit for Flite's output). */
export function wavSamples(wav: Buffer): { pcm: Buffer; sampleRate: number } {
  const info = parseWav(wav);
  if (!info || info.channels !== 1 || info.bitsPerSample !== 16) throw new Error('not a mono 16-bit WAV file');
  return { pcm: wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes), sampleRate: info.sampleRate };
}
