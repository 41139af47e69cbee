#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx transpiles on load, so no build step stands between
// `npm ci` and `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
