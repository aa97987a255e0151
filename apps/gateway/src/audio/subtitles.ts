import { TranscriptSegment } from '@svc/contracts';

/** `HH:MM:SS<sep>mmm` from seconds. */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** One cue per segment; a blank line inside a cue's text would end it, so lines are joined. */
function cueText(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** SubRip: numbered cues, `00:00:01,250 --> 00:00:02,000`. */
export function toSrt(segments: TranscriptSegment[]): string {
  return segments.map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${cueText(s.text)}\n`).join('\n');
}

/** WebVTT: the `WEBVTT` header, then cues `00:00:01.250 --> 00:00:02.000`. */
export function toVtt(segments: TranscriptSegment[]): string {
  const cues = segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${cueText(s.text)}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}
