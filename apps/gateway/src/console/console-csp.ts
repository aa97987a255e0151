/**
 * The console's Content-Security-Policy: its own scripts and styles only (Vite emits files, no
 * inline code), API calls to this origin, generated images and audio as blob:/data: URLs, no
 * frames, plugins, form posts or <base> changes.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
