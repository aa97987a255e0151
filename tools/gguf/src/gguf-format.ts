/** Constants of the GGUF v3 file format and the ggml/llama.cpp enums it stores. */
export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;

export enum GgufValueType {
  Uint8 = 0,
  Int8 = 1,
  Uint16 = 2,
  Int16 = 3,
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  Uint64 = 10,
  Int64 = 11,
  Float64 = 12,
}

/** The subset of ggml tensor types this tool writes. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
}

/** llama.cpp's `llama_token_type`, stored in `tokenizer.ggml.token_type`. */
export enum TokenType {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
}

/** `general.file_type` (llama_ftype). */
export enum FileType {
  AllF32 = 0,
  MostlyF16 = 1,
}
