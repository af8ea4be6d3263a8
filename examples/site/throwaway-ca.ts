// A throwaway certificate authority and server certificates signed by it, for HTTPS on loopback:
// `npm run example:site` and the tests' receivers. node:crypto makes keys but not certificates;
// `selfsigned` (on @peculiar/x509) writes the X.509. Never for anything but local testing.
import { generate } from 'selfsigned';

export interface ThrowawayCa {
  /** The CA certificate, to trust (NODE_EXTRA_CA_CERTS, or `ca:` in-process). */
  certPem: string;
  keyPem: string;
}

export interface ServerCertificateOptions {
  names: string[];
  ips: string[];
  notBefore?: Date;
  notAfter?: Date;
}

const DAY_MS = 86_400_000;

export async function createThrowawayCa(commonName: string, days = 7): Promise<ThrowawayCa> {
  const ca = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + days * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { certPem: ca.cert, keyPem: ca.private };
}

/** A TLS server certificate for these host names and IP addresses, signed by `ca`. */
export async function issueServerCertificate(
  ca: ThrowawayCa,
  opts: ServerCertificateOptions,
): Promise<{ certPem: string; keyPem: string }> {
  const notBeforeDate = opts.notBefore ?? new Date(Date.now() - 60_000);
  const leaf = await generate([{ name: 'commonName', value: opts.names[0] ?? opts.ips[0] ?? 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { cert: ca.certPem, key: ca.keyPem },
    notBeforeDate,
    notAfterDate: opts.notAfter ?? new Date(notBeforeDate.getTime() + 7 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...opts.names.map((value) => ({ type: 2 as const, value })),
          ...opts.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { certPem: leaf.cert, keyPem: leaf.private };
}
