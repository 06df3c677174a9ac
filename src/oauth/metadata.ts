// The discovery documents of the MCP endpoint as an OAuth protected resource (RFC 9728) and of
// the authorization server inside this service (RFC 8414). Pure: built from the public URL.

/** The one scope: calling the read-only tools, resources and prompts of the MCP endpoint. */
export const MCP_SCOPE = 'mcp';

/** Where the MCP endpoint is served; the resource a token is issued for is the public URL plus this. */
export const MCP_PATH = '/api/mcp';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

export const OAUTH_PATHS = { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register' } as const;

/** `https://host` (no trailing slash) from a configured public URL, or an error naming what is wrong. */
export function publicOrigin(publicUrl: string): string {
  if (!URL.canParse(publicUrl)) throw new Error('not a URL');
  const url = new URL(publicUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('PUBLIC_URL must be an http(s) URL');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') throw new Error('PUBLIC_URL must be an origin (scheme, host and port only)');
  return url.origin;
}

/** The resource indicator (RFC 8707) of the MCP endpoint: what a token's audience must be. */
export const mcpResource = (origin: string): string => `${origin}${MCP_PATH}`;

/** The URL a 401 names in `WWW-Authenticate: Bearer resource_metadata="..."` (the path-suffixed form). */
export const resourceMetadataUrl = (origin: string): string => `${origin}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;

/**
 * RFC 9728 protected resource metadata. With OAuth off it lists no authorization server: the
 * endpoint takes a bearer API key in the header and nothing else.
 */
export function protectedResourceMetadata(origin: string, oauth: boolean): Record<string, unknown> {
  return {
    resource: mcpResource(origin),
    authorization_servers: oauth ? [origin] : [],
    scopes_supported: oauth ? [MCP_SCOPE] : [],
    bearer_methods_supported: ['header'],
    resource_name: 'KR/US stock data (MCP, read-only)',
    resource_documentation: `${origin}/docs`,
  };
}

/** RFC 8414 authorization server metadata: authorization code with PKCE S256, public clients. */
export function authorizationServerMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${origin}${OAUTH_PATHS.token}`,
    registration_endpoint: `${origin}${OAUTH_PATHS.register}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [MCP_SCOPE],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${origin}/docs`,
  };
}
