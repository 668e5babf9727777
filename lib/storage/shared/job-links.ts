import { JobLinkRow } from '../storage-records';

/** The rows of a `dependsOn` side (id, queue, name, status, and the window's `total`) as the storage hands them out. */
export function toJobLinks(rows: Record<string, unknown>[]): { rows: JobLinkRow[]; total: number } {
  return {
    rows: rows.map((row) => ({
      id: String(row.id),
      queue: (row.queue as string | null) ?? null,
      name: (row.name as string | null) ?? null,
      status: row.status as JobLinkRow['status'],
    })),
    total: rows.length > 0 ? Number(rows[0].total) : 0,
  };
}
