import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built by `npm run build:web` (and by `npm ci`, through the root `prepare` script) into web/dist,
// which the server serves at `/`: hashed files under /assets/ are cached for good, index.html never.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: nothing fetched from another host, no preload of anything else.
    modulePreload: false,
  },
});
