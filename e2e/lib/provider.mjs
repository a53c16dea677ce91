// An in-memory OAuthClientProvider (the SDK's interface for interactive
// OAuth clients) whose redirectToAuthorization hands the authorization URL
// to a headless browser instead of a person.
import { randomBytes } from 'node:crypto';

export class BrowserOAuthProvider {
  // redirectUrl:        the loopback redirect_uri the test's callback server answers.
  // clientMetadataUrl:  set for Client ID Metadata Document registration; left
  //                     undefined for Dynamic Client Registration.
  // preregisteredClientId: a client_id the SDK should use as is (skips both
  //                     CIMD detection and DCR); only for the http fallback.
  // onRedirect(url):    called with the authorization URL; returns a promise
  //                     (the browser session), kept in `browserSession`.
  constructor({ redirectUrl, clientName, clientMetadataUrl, preregisteredClientId, onRedirect }) {
    this._redirectUrl = redirectUrl;
    this._clientName = clientName;
    if (clientMetadataUrl) this.clientMetadataUrl = clientMetadataUrl;
    this._onRedirect = onRedirect;
    this._state = randomBytes(16).toString('base64url');
    this.clientInfo = preregisteredClientId ? { client_id: preregisteredClientId } : undefined;
    this.savedTokens = undefined;
    this._verifier = undefined;
    this._discovery = undefined;
    this.authorizationUrl = undefined;
    this.browserSession = undefined;
    this.events = []; // what the SDK asked of the provider, in order
  }

  get redirectUrl() { return this._redirectUrl; }

  get clientMetadata() {
    return {
      client_name: this._clientName,
      redirect_uris: [this._redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  // The Client ID Metadata Document the test server publishes at
  // clientMetadataUrl: the client metadata plus client_id = its own URL.
  metadataDocument() {
    return { client_id: this.clientMetadataUrl, ...this.clientMetadata };
  }

  state() { return this._state; }
  get expectedState() { return this._state; }

  clientInformation() { return this.clientInfo; }
  saveClientInformation(info) { this.events.push(`saveClientInformation(${info.client_id})`); this.clientInfo = info; }

  tokens() { return this.savedTokens; }
  saveTokens(tokens) { this.events.push('saveTokens'); this.savedTokens = tokens; }

  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() {
    if (!this._verifier) throw new Error('no PKCE code verifier saved');
    return this._verifier;
  }

  saveDiscoveryState(s) { this._discovery = s; }
  discoveryState() { return this._discovery; }

  invalidateCredentials(scope) {
    this.events.push(`invalidateCredentials(${scope})`);
    if (scope === 'all' || scope === 'client') this.clientInfo = undefined;
    if (scope === 'all' || scope === 'tokens') this.savedTokens = undefined;
    if (scope === 'all' || scope === 'verifier') this._verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this._discovery = undefined;
  }

  redirectToAuthorization(url) {
    this.events.push('redirectToAuthorization');
    this.authorizationUrl = url;
    this.browserSession = Promise.resolve().then(() => this._onRedirect(url));
    this.browserSession.catch(() => {}); // awaited by the test; never unhandled
  }
}
