// An error as the page says it. The Korean page names the service's documented error codes in
// Korean (i18n.ts, err_*) instead of the service's English detail; the English page shows that
// detail, which says exactly what was wrong.

import { ApiProblem } from './api.js';
import { currentLang, t, type LabelKey } from './i18n.js';

const CODES: Readonly<Record<string, LabelKey>> = {
  unauthorized: 'err_unauthorized',
  no_key: 'err_unauthorized',
  forbidden: 'err_forbidden',
  not_found: 'err_not_found',
  invalid_parameter: 'err_invalid_parameter',
  quota_exceeded: 'err_quota_exceeded',
  rate_limited: 'err_rate_limited',
  data_unavailable: 'err_data_unavailable',
  service_unavailable: 'err_service_unavailable',
  internal_error: 'err_internal_error',
};

/** "Error 400: ..." in the page's language. */
export function errorText(err: unknown): string {
  if (!(err instanceof ApiProblem)) return `${t('error')}: ${t('err_network')}`;
  if (currentLang() === 'en') return `${t('error')} ${err.status}: ${err.detail}`;
  return `${t('error')} ${err.status}: ${problemKo(err)}`;
}

function problemKo(err: ApiProblem): string {
  if (err.code === 'invalid_parameter' && err.parameter === 'sectors') return t('err_invalid_sectors');
  const key = CODES[err.code];
  if (key === undefined) return t('err_other', { status: err.status });
  return t(key, { parameter: err.parameter ?? '' }).replace(' ()', '');
}
