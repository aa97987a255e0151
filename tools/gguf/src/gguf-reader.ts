import { GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GgmlType, GgufValueType } from './gguf-format';

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: GgmlType;
  /** Relative to `dataOffset`. */
  offset: number;
}

export interface GgufFile {
  version: number;
  metadata: Record<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Absolute file offset where tensor data starts. */
  dataOffset: number;
}

/** Minimal GGUF parser (header, metadata, tensor infos): enough to check what the writer produced. */
export function readGguf(buf: Buffer): GgufFile {
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > buf.length) throw new Error(`GGUF truncated at byte ${pos}`);
    const at = pos;
    pos += n;
    return at;
  };
  const u32 = () => buf.readUInt32LE(need(4));
  const u64 = () => {
    const v = buf.readBigUInt64LE(need(8));
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('u64 value too large');
    return Number(v);
  };
  const str = () => {
    const len = u64();
    return buf.toString('utf8', need(len), pos);
  };
  const value = (type: GgufValueType): GgufValue => {
    switch (type) {
      case GgufValueType.Uint8:
        return buf.readUInt8(need(1));
      case GgufValueType.Int8:
        return buf.readInt8(need(1));
      case GgufValueType.Uint16:
        return buf.readUInt16LE(need(2));
      case GgufValueType.Int16:
        return buf.readInt16LE(need(2));
      case GgufValueType.Uint32:
        return u32();
      case GgufValueType.Int32:
        return buf.readInt32LE(need(4));
      case GgufValueType.Float32:
        return buf.readFloatLE(need(4));
      case GgufValueType.Bool:
        return buf.readUInt8(need(1)) !== 0;
      case GgufValueType.String:
        return str();
      case GgufValueType.Uint64:
        return buf.readBigUInt64LE(need(8));
      case GgufValueType.Int64:
        return buf.readBigInt64LE(need(8));
      case GgufValueType.Float64:
        return buf.readDoubleLE(need(8));
      case GgufValueType.Array: {
        const itemType = u32() as GgufValueType;
        const count = u64();
        const items: GgufValue[] = [];
        for (let i = 0; i < count; i++) items.push(value(itemType));
        return items;
      }
      default:
        throw new Error(`unknown GGUF value type ${String(type)} at byte ${pos}`);
    }
  };

  if (u32() !== GGUF_MAGIC) throw new Error('not a GGUF file');
  const version = u32();
  if (version !== 3) throw new Error(`unsupported GGUF version ${version}`);
  const tensorCount = u64();
  const kvCount = u64();
  const metadata: Record<string, GgufValue> = {};
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    metadata[key] = value(u32() as GgufValueType);
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = str();
    const nDims = u32();
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(u64());
    tensors.push({ name, dims, type: u32() as GgmlType, offset: u64() });
  }
  const alignment = typeof metadata['general.alignment'] === 'number' ? metadata['general.alignment'] : GGUF_DEFAULT_ALIGNMENT;
  const dataOffset = Math.ceil(pos / alignment) * alignment;
  return { version, metadata, tensors, dataOffset };
}

/** Bytes per element of the tensor types this tool writes. */
export function elementSize(type: GgmlType): number {
  if (type === GgmlType.F32) return 4;
  if (type === GgmlType.F16) return 2;
  throw new Error(`unsupported tensor type ${String(type)}`);
}
