/** Little-endian append-only byte buffer that grows as needed. */
export class ByteSink {
  private buf = Buffer.alloc(1 << 16);
  private len = 0;

  get length(): number {
    return this.len;
  }

  private reserve(n: number): number {
    if (this.len + n > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    const at = this.len;
    this.len += n;
    return at;
  }

  u8(v: number): void {
    this.buf.writeUInt8(v, this.reserve(1));
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.reserve(4));
  }
  i32(v: number): void {
    this.buf.writeInt32LE(v, this.reserve(4));
  }
  u64(v: number): void {
    this.buf.writeBigUInt64LE(BigInt(v), this.reserve(8));
  }
  f32(v: number): void {
    this.buf.writeFloatLE(v, this.reserve(4));
  }
  /** GGUF string: u64 byte length, then UTF-8 bytes, no terminator. */
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    bytes.copy(this.buf, this.reserve(bytes.length));
  }
  bytes(data: Uint8Array): void {
    const at = this.reserve(data.byteLength);
    this.buf.set(data, at);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.len % alignment)) % alignment;
    this.buf.fill(0, this.reserve(pad), this.len);
  }

  toBuffer(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}
