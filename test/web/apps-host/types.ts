// What the Apps test host (host.ts, in the browser) is asked to do and answers (test/web/apps.test.ts, in Node).

export interface HostRun {
  endpoint: string;
  key: string;
  /** 2026-07-28 pins the modern era; a 2025 revision is the client's initialize mode, proposing it. */
  era: '2026-07-28' | '2025-11-25' | '2025-06-18';
  tool: string;
  args: Record<string, unknown>;
  theme: 'light' | 'dark';
  locale: string;
  /** Whether the client declares the extension (false: a host without MCP Apps). */
  apps: boolean;
}

export interface HostAnswer {
  era: string | undefined;
  version: string | undefined;
  /** The `_meta` of the tool as tools/list showed it. */
  toolMeta: unknown;
  resourceUri: string | null;
  mimeType: string | null;
}
