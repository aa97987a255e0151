import { spawn } from 'node:child_process';
import { ffmpegPath as ffmpegBinary } from '@svc/ffmpeg';

const STDERR_KEEP = 4_096;

/**
 * Runs ffmpeg to completion, reporting progress as a fraction of `expectedSeconds` of output
 * (`-progress pipe:1`). The child is SIGKILLed when `signal` aborts; a non-zero exit is an error
 * carrying the end of ffmpeg's log (never the media).
 */
export function runFfmpeg(args: string[], options: { expectedSeconds: number; signal: AbortSignal; progress?: (fraction: number) => void }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegBinary(), ['-hide_banner', '-nostdin', '-y', '-progress', 'pipe:1', '-nostats', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    if (options.signal.aborted) onAbort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const m = /out_time_(?:ms|us)=(\d+)\s*$/m.exec(chunk);
      if (m && options.progress && options.expectedSeconds > 0) options.progress(Math.min(0.99, Number(m[1]) / 1e6 / options.expectedSeconds));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      options.signal.removeEventListener('abort', onAbort);
      if (aborted) reject(new Error('ffmpeg was stopped (job cancelled or worker shutting down)'));
      else if (code !== 0) reject(new Error(`ffmpeg exited with ${code}: ${stderr.split('\n').slice(-4).join(' ').trim()}`));
      else resolve();
    });
  });
}
