// The sign-in page of the authorization server: server-rendered HTML, no script, no external
// asset, under a policy that lets it load nothing but its own style and post its form only to
// this origin and (the redirect after the post) the client's redirect URI. Step one asks for the
// API key; step two shows what the assistant will be allowed with it and asks to allow or deny.

import { createHash } from 'node:crypto';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}label{display:block;margin:1rem 0 .3rem;font-weight:600}
input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{font:inherit;padding:.5rem 1.2rem;margin:1rem .5rem 0 0}.error{color:#a40e26;font-weight:600}
dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem 1rem}dt{font-weight:600}code{font-size:.9em}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The policy of a sign-in page whose form may end in a redirect to `redirectUri`. */
export function signInPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  // A form post's redirect is checked against form-action: the client's own origin (or, for a
  // private-use scheme, the scheme) is allowed besides this origin.
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${target}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export interface PageClient {
  name: string;
  /** The host (or private-use scheme) the browser is sent back to. */
  redirectTarget: string;
}

export interface KeyPlan {
  keyPrefix: string;
  plan: string;
  daily: number;
  burst: number;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const hiddenFields = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');

const clientLines = (client: PageClient, tools: readonly string[]): string => `<p><strong>${escapeHtml(client.name)}</strong> asks to use this stock data service on your behalf.
It will be sent back to <code>${escapeHtml(client.redirectTarget)}</code>.</p>
<p>It will be allowed to call the read-only tools (${tools.map((t) => `<code>${escapeHtml(t)}</code>`).join(', ')}), resources and prompts, counted against your key's daily quota. It cannot change anything or see your key.</p>`;

/** Step one: the API key. `fields` are the authorization request's parameters and the CSRF token. */
export function keyPage(client: PageClient, tools: readonly string[], fields: Readonly<Record<string, string>>, error: string | null): string {
  return page(
    'Sign in with your API key',
    `<h1>Sign in with your API key</h1>
${clientLines(client, tools)}
${error === null ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post">
${hiddenFields(fields)}
<label for="api_key">API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" required placeholder="sk_live_...">
<button type="submit" name="step" value="review">Continue</button>
</form>`,
  );
}

/**
 * Step two: what the key allows; allow or deny. The form carries only the CSRF token: the key
 * and the request wait on the server (the pending grant of this session).
 */
export function reviewPage(client: PageClient, tools: readonly string[], fields: Readonly<Record<string, string>>, key: KeyPlan): string {
  return page(
    'Allow access?',
    `<h1>Allow access?</h1>
${clientLines(client, tools)}
<dl>
<dt>Key</dt><dd><code>${escapeHtml(key.keyPrefix)}…</code></dd>
<dt>Plan</dt><dd id="plan">${escapeHtml(key.plan)}</dd>
<dt>Daily quota</dt><dd id="quota">${key.daily} calls a day (shared with every other use of this key)</dd>
<dt>Burst</dt><dd>${key.burst} calls a second</dd>
</dl>
<form method="post">
${hiddenFields(fields)}
<button type="submit" name="step" value="allow">Allow</button>
<button type="submit" name="step" value="deny">Deny</button>
</form>`,
  );
}

/**
 * An error shown instead of being sent back to the client (an unknown client, an unregistered
 * redirect URI, a malformed request): `reason` is its stable code (docs/oauth.md).
 */
export function errorPage(message: string, reason: string): string {
  return page('Sign-in cannot continue', `<h1>Sign-in cannot continue</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>\n<p>Reason: <code id="reason">${escapeHtml(reason)}</code></p>`);
}

export const ERROR_PAGE_POLICY = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`;
