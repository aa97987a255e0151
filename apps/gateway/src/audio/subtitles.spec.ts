import { toSrt, toVtt } from './subtitles';

describe('subtitles', () => {
  const segments = [
    { text: 'Hello there.', start: 0, end: 1.25 },
    { text: 'Second\nline.', start: 3661.5, end: 3662.0004 },
  ];

  it('writes SubRip cues numbered from 1 with comma milliseconds and hours', () => {
    expect(toSrt(segments)).toBe('1\n00:00:00,000 --> 00:00:01,250\nHello there.\n\n2\n01:01:01,500 --> 01:01:02,000\nSecond line.\n');
  });

  it('writes WebVTT with its header and dotted milliseconds', () => {
    expect(toVtt(segments)).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.250\nHello there.\n\n01:01:01.500 --> 01:01:02.000\nSecond line.\n');
  });

  it('is only the header (WebVTT) or empty (SubRip) without segments', () => {
    expect(toVtt([])).toBe('WEBVTT\n');
    expect(toSrt([])).toBe('');
  });
});
