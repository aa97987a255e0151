import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ffmpegPath } from '@svc/ffmpeg';

/** What the fake server saw of one create request. */
export interface SeenCreate {
  contentType: string;
  auth?: string;
  fields: Record<string, string>;
  reference?: { type: string; bytes: Buffer };
}

interface Job {
  id: string;
  prompt: string;
  polls: number;
  deleted: boolean;
}

export const FAKE_KEY = 'sk-fake-upstream-key-123';

/**
 * A small server that speaks the OpenAI videos API (create, retrieve, content, delete) for the
 * adapter's tests. The prompt picks the job's fate: `fail` and `moderation` fail it, `slow` never
 * finishes, `flaky` answers every other poll with 503, `garbage` finishes with a file that is not a video, `chunked` sends the file without a
 * content-length, `reject` is refused at create
 * (400), anything else completes on the third poll. Its error messages name its own address, so
 * tests can check none of it reaches our callers.
 */
export class FakeOpenAIVideosServer {
  readonly creates: SeenCreate[] = [];
  readonly jobs = new Map<string, Job>();
  baseUrl = '';
  private server?: http.Server;
  private mp4 = Buffer.alloc(0);

  async start(): Promise<void> {
    const file = path.join(os.tmpdir(), `fake-openai-video-${process.pid}.mp4`);
    await promisify(execFile)(ffmpegPath(), [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=24:duration=2'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', file],
    ]);
    this.mp4 = await readFile(file);
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${FAKE_KEY}`)
      return json(401, { error: { message: `Incorrect API key provided: ${req.headers.authorization ?? ''}`, type: 'invalid_request_error' } });
    const match = /^\/v1\/videos(?:\/([^/?]+))?(\/content)?(?:\?.*)?$/.exec(req.url ?? '');
    if (!match) return json(404, { error: { message: 'not found' } });
    const [, id, content] = match;
    if (req.method === 'POST' && !id) return json(...(await this.create(req, body)));
    const job = id ? this.jobs.get(decodeURIComponent(id)) : undefined;
    if (!job || job.deleted) return json(404, { error: { message: `Video ${id} not found on ${this.baseUrl}` } });
    if (req.method === 'DELETE') {
      job.deleted = true;
      return json(200, { id: job.id, object: 'video.deleted', deleted: true });
    }
    if (content) {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      if (job.prompt === 'chunked') {
        // No content-length: the size is known only as the bytes arrive.
        for (let i = 0; i < this.mp4.length; i += 1024) res.write(this.mp4.subarray(i, i + 1024));
        return void res.end();
      }
      return void res.end(job.prompt === 'garbage' ? Buffer.from('this is not an mp4 file') : this.mp4);
    }
    job.polls++;
    if (job.prompt === 'flaky' && job.polls % 2 === 1) return json(503, { error: { message: 'overloaded' } });
    return json(200, this.view(job));
  }

  private async create(req: http.IncomingMessage, body: Buffer): Promise<[number, unknown]> {
    const contentType = req.headers['content-type'] ?? '';
    const seen: SeenCreate = { contentType, auth: req.headers.authorization, fields: {} };
    if (contentType.startsWith('multipart/form-data')) {
      const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
      for (const [key, value] of form) {
        if (typeof value === 'string') seen.fields[key] = value;
        else seen.reference = { type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
      }
    } else {
      seen.fields = JSON.parse(body.toString()) as Record<string, string>;
    }
    this.creates.push(seen);
    if (seen.fields.prompt === 'reject')
      return [
        400,
        { error: { message: `Invalid size; see https://docs.example.com/videos or ask ${this.baseUrl}`, type: 'invalid_request_error', param: 'size' } },
      ];
    const job: Job = { id: `video_${this.jobs.size + 1}abc`, prompt: seen.fields.prompt, polls: 0, deleted: false };
    this.jobs.set(job.id, job);
    return [200, this.view(job)];
  }

  private view(job: Job): Record<string, unknown> {
    const base = { id: job.id, object: 'video', model: 'sora-test', created_at: 1, size: '64x64', seconds: '2' };
    if (job.prompt === 'fail' && job.polls >= 1)
      return { ...base, status: 'failed', progress: 30, error: { code: 'internal_error', message: `worker at 10.1.2.3:9000 crashed (${this.baseUrl})` } };
    if (job.prompt === 'moderation' && job.polls >= 1)
      return { ...base, status: 'failed', progress: 0, error: { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' } };
    if (job.prompt === 'slow' || job.polls < (job.prompt === 'flaky' ? 4 : 2))
      return { ...base, status: job.polls === 0 ? 'queued' : 'in_progress', progress: Math.min(90, job.polls * 40) };
    return { ...base, status: 'completed', progress: 100, completed_at: 2 };
  }
}
