/**
 * Streams the ids a query yields, page by page with a cursor, up to `limit`:
 * how run plans walk datasets of any size without loading them.
 */
export async function* pagedIds(
  fetchPage: (page: { take: number; cursor?: { id: string }; skip?: number }) => Promise<Array<{ id: string }>>,
  options: { limit?: number; pageSize?: number } = {},
): AsyncGenerator<string> {
  const pageSize = options.pageSize ?? 500;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  while (remaining > 0) {
    const take = Math.min(pageSize, remaining);
    const page = await fetchPage({ take, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    for (const row of page) yield row.id;
    remaining -= page.length;
    if (page.length < take) return;
    cursor = page[page.length - 1]!.id;
  }
}
