import { DOWNLOAD_URL_TTL_MS, VideoDownloadSigner } from './video-download-url';

const id = '123e4567-e89b-42d3-a456-426614174000';
const other = '123e4567-e89b-42d3-a456-426614174001';
const now = Date.UTC(2026, 10, 25, 12);

function parts(url: string): { id: string; expires: number; signature: string } {
  const u = new URL(url);
  return { id: u.pathname.split('/').pop()!, expires: Number(u.searchParams.get('expires')), signature: u.searchParams.get('signature')! };
}

describe('VideoDownloadSigner', () => {
  const signer = new VideoDownloadSigner(Buffer.from('k'.repeat(32)));
  const url = signer.url('https://api.example.com/', id, now);
  const p = parts(url);

  it('signs a URL on the given origin, valid 24 hours', () => {
    expect(url.startsWith(`https://api.example.com/api/v1/video/download/${id}?expires=`)).toBe(true);
    expect(p.expires * 1000).toBe(now + DOWNLOAD_URL_TTL_MS);
    expect(signer.verify(p.id, p.expires, p.signature, now + DOWNLOAD_URL_TTL_MS - 1000)).toBe(true);
  });

  it('refuses an expired URL, another job, a moved expiry, a forged signature or another key', () => {
    expect(signer.verify(p.id, p.expires, p.signature, now + DOWNLOAD_URL_TTL_MS + 1000)).toBe(false);
    expect(signer.verify(other, p.expires, p.signature, now)).toBe(false);
    expect(signer.verify(p.id, p.expires + 3600, p.signature, now)).toBe(false);
    expect(signer.verify(p.id, p.expires, '0'.repeat(64), now)).toBe(false);
    expect(signer.verify(p.id, p.expires, 'not-hex', now)).toBe(false);
    expect(new VideoDownloadSigner(Buffer.from('j'.repeat(32))).verify(p.id, p.expires, p.signature, now)).toBe(false);
  });
});
