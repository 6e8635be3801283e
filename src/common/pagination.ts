import { NotFound } from './errors';

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

const MAX_PAGE_SIZE = 200;

/** `page` and `page_size` as DRF reads them: bad or out-of-range pages are 404 "Invalid page." */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  // Plain decimal integers only: "1e20", "0x10", " 2" or a page past any table are "Invalid page." (never a 500).
  const page = query.page === undefined ? 1 : wholeNumber(query.page);
  let pageSize = query.page_size === undefined ? 25 : wholeNumber(query.page_size);
  if (page === null || page < 1) throw new NotFound('Invalid page.');
  if (pageSize === null || pageSize < 1) pageSize = 25;
  pageSize = Math.min(pageSize, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * One page of a list. `next` and `previous` keep every query parameter but `page` (SPEC §19), so a
 * client paging through a filtered list stays in it.
 */
export function pageOf<T>(path: string, req: PageRequest, count: number, results: T[], query: Record<string, unknown> = {}): Page<T> {
  const lastPage = Math.max(1, Math.ceil(count / req.pageSize));
  if (req.page > lastPage) throw new NotFound('Invalid page.');
  const kept = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === 'page' || key === 'page_size') continue;
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) kept.append(key, String(v));
  }
  if (req.pageSize !== 25) kept.append('page_size', String(req.pageSize));
  const rest = kept.toString();
  const link = (page: number) => `${path}?page=${page}${rest ? `&${rest}` : ''}`;
  return {
    count,
    next: req.page < lastPage ? link(req.page + 1) : null,
    previous: req.page > 1 ? link(req.page - 1) : null,
    results,
  };
}

/** A positive decimal integer of at most nine digits, else null. */
function wholeNumber(value: unknown): number | null {
  return typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : null;
}
