// RFC 9457 problem details for the REST door.

import { ERROR_TITLES, type ApiError, type ErrorCode } from '../kernel/errors.js';


export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  parameter?: string;
  /** not_found of a delisted stock: its last trading day. */
  delistedOn?: string;
  instance?: string;
}

export function problemOf(err: ApiError, instance?: string): Problem {
  return {
    type: `/api/public/v2/problems/${err.code}`,
    title: ERROR_TITLES[err.code],
    status: err.status,
    detail: err.detail,
    code: err.code,
    ...(err.extra.parameter === undefined ? {} : { parameter: err.extra.parameter }),
    ...(err.extra.delistedOn === undefined ? {} : { delistedOn: err.extra.delistedOn }),
    ...(instance === undefined ? {} : { instance }),
  };
}
