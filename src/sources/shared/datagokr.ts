// data.go.kr (공공데이터포털) conventions shared by the FSC and Korea Customs adapters.

import { readFlatXml } from './xml.js';

/**
 * The portal issues each key in two spellings: "Decoding" (raw, may hold + / =) and
 * "Encoding" (already percent-encoded). A raw key must be encoded exactly once or the
 * gateway decodes '+' to a space and answers SERVICE_KEY_IS_NOT_REGISTERED_ERROR.
 */
export function encodeServiceKey(key: string): string {
  return /%[0-9A-Fa-f]{2}/.test(key) ? key : encodeURIComponent(key);
}

/**
 * Gateway-level failures (bad key, quota) come back as HTTP 200 with an XML body, even
 * when JSON was requested:
 * `<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg>
 *  <returnAuthMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</returnAuthMsg>
 *  <returnReasonCode>22</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>`.
 * Returns a description when the body is that envelope.
 */
export function gatewayError(body: string): string | null {
  // A cheap test first: every successful answer passes through here.
  if (!body.includes('<OpenAPI_ServiceResponse') && !body.includes('<cmmMsgHeader')) return null;
  let text: ReadonlyMap<string, string>;
  try {
    text = readFlatXml(body).text;
  } catch {
    return 'data.go.kr gateway error ? (not well-formed XML)';
  }
  const code = text.get('returnReasonCode') || '?';
  const msg = text.get('returnAuthMsg') || text.get('errMsg') || '';
  return `data.go.kr gateway error ${code} ${msg}`.trim();
}
