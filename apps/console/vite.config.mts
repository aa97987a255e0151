import react from '@vitejs/plugin-react';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

const here = import.meta.dirname;

/**
 * The admin console: built to dist/console, which the gateway serves at /console
 * (apps/gateway/src/console). Hashed file names under assets/ are what lets the gateway cache
 * them for a year; no inline scripts, so the gateway's CSP needs no exception.
 */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: [path.resolve(here, 'src/test-setup.ts')],
  },
});
