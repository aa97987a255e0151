import { imageContentType } from './image-type';

describe('imageContentType', () => {
  it('knows PNG, JPEG and WebP by their first bytes, and nothing else', () => {
    expect(imageContentType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('image/png');
    expect(imageContentType(Buffer.from('ffd8ffe000104a464946', 'hex'))).toBe('image/jpeg');
    expect(imageContentType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('image/webp');
    expect(imageContentType(Buffer.from('GIF89a......'))).toBeUndefined();
    expect(imageContentType(Buffer.alloc(0))).toBeUndefined();
  });
});
