// A plain fixed-width table on stdout: text left-aligned, numbers right-aligned.

export type Cell = string | number | null;

export function printTable(header: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const text = (c: Cell): string => (c === null ? '-' : String(c));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i] ?? null).length)));
  const line = (cells: readonly Cell[]): string =>
    cells
      .map((c, i) => {
        const w = widths[i] ?? 0;
        return typeof c === 'number' ? text(c).padStart(w) : text(c).padEnd(w);
      })
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}
