import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built by `npm run build:web` (and by `npm ci`, through the root `prepare` script) into web/dist,
// which the server serves at `/`: hashed files under /assets/ are cached for good, index.html never.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets' },
});
