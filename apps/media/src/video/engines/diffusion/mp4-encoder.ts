import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { DomainError, ErrorCode } from '@svc/errors';
import { ffmpegPath } from '@svc/ffmpeg';

export interface Mp4EncoderOptions {
  /** Size of the RGB frames written. */
  sourceWidth: number;
  sourceHeight: number;
  /** Size of the video (even numbers). */
  width: number;
  height: number;
  fps: number;
  /** `cover`: scale to cover the frame and crop the centre (keeps shapes); `fill`: stretch to it. */
  fit: 'cover' | 'fill';
  output: string;
  signal: AbortSignal;
}

/**
 * Raw RGB frames in, an H.264 MP4 out (yuv420p, `+faststart` so players start before the whole
 * file arrives), through one ffmpeg process fed on stdin. Frames are scaled to the output size
 * with Lanczos; `write` waits while ffmpeg's pipe is full.
 */
export class Mp4Encoder {
  private readonly child;
  private readonly stderr: string[] = [];
  private readonly exited: Promise<number | null>;

  constructor(private readonly options: Mp4EncoderOptions) {
    const { width: w, height: h } = options;
    const scale =
      options.fit === 'cover' ? `scale=${w}:${h}:force_original_aspect_ratio=increase:flags=lanczos,crop=${w}:${h}` : `scale=${w}:${h}:flags=lanczos`;
    const args = [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${options.sourceWidth}x${options.sourceHeight}`, '-framerate', String(options.fps), '-i', 'pipe:0'],
      ...['-vf', `${scale},setsar=1`, '-an'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-r', String(options.fps)],
      options.output,
    ];
    this.child = spawn(ffmpegPath(), args, { stdio: ['pipe', 'ignore', 'pipe'], signal: options.signal });
    this.child.stderr.on('data', (d: Buffer) => this.stderr.length < 20 && this.stderr.push(d.toString()));
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('error', () => resolve(null));
      this.child.on('close', (code) => resolve(code));
    });
  }

  async write(rgb: Uint8Array): Promise<void> {
    if (!this.child.stdin.write(rgb)) await Promise.race([once(this.child.stdin, 'drain'), this.exited]);
  }

  /** Closes stdin and waits for the file; throws when ffmpeg failed or the job was cancelled. */
  async finish(): Promise<void> {
    this.child.stdin.end();
    const code = await this.exited;
    if (this.options.signal.aborted) throw new DomainError(ErrorCode.ServiceUnavailable, 'Video generation was cancelled.');
    if (code !== 0) throw new Error(`ffmpeg failed to encode the video (exit ${code}): ${this.stderr.join('').slice(0, 500)}`);
  }

  abort(): void {
    this.child.kill('SIGKILL');
  }
}
