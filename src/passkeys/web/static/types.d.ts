/** The global @simplewebauthn/browser's UMD bundle defines (served as /passkeys/static/webauthn.js). */
declare var SimpleWebAuthnBrowser: {
  browserSupportsWebAuthn(): boolean;
  startRegistration(o: { optionsJSON: unknown }): Promise<unknown>;
  startAuthentication(o: { optionsJSON: unknown }): Promise<unknown>;
};
