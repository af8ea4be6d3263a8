// Webhook secrets at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret,
// bound to the site id so a sealed value copied to another site's row does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { StateStoreError } from './state-store-error.ts';

const VERSION = 'v1';

export interface SecretBox {
  seal(siteId: string, secret: string): string;
  open(siteId: string, sealed: string): string;
}

export function createSecretBox(serverSecret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, 'quire-state', 'quire webhook secret v1', 32));
  return {
    seal(siteId, secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(siteId));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(siteId, sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag)
        throw new StateStoreError(`the stored webhook secret of ${siteId} is malformed`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(siteId));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (e) {
        throw new StateStoreError(
          `the stored webhook secret of ${siteId} cannot be opened: the server secret (QUIRE_SECRET or .quire/secret) changed since it was set; set the webhook again`,
          { cause: e },
        );
      }
    },
  };
}
