#!/usr/bin/env node
// The stdio MCP bridge (src/cli/mcp-stdio.ts) straight from a checkout, with no build step:
// the TypeScript runs through tsx, which is resolved from this repository's node_modules (a
// plain `npm install`), not from the directory the assistant starts it in.
//
//   SERVICE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sk_live_... node /path/to/repo/bin/mcp-stdio.mjs

import { register } from 'tsx/esm/api';

register();
const { runStdioBridge } = await import('../src/cli/mcp-stdio.ts');
await runStdioBridge();
