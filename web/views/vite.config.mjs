// The MCP Apps view (src/http/mcp-apps.ts serves it as ui://stock-data/view.html): the
// dashboard's chart code and the extension's App bridge built into one self-contained HTML file
// (scripts and styles inlined, no request of its own), web/views/dist/index.html.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  logLevel: 'warn',
  plugins: [viteSingleFile()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
    // zod (inside the App bridge) carries comments Rollup cannot place; they only cost a warning.
    rollupOptions: { onwarn: (warning, warn) => warning.code !== 'INVALID_ANNOTATION' && warn(warning) },
  },
});
