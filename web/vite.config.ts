import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The page uses this checkout's client sources (packages/client/src): no client build step first.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  resolve: {
    alias: { '@oddsbase/client': fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: nothing fetched from another host, no preload of anything else.
    modulePreload: false,
  },
});
