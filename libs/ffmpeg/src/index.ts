export { ffmpegPath, ffprobePath } from './binaries';
