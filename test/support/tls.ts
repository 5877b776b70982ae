import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { tempDir } from './temp.js';

/**
 * Test-only certificates, made at test time with `openssl` (Debian: `apt-get install openssl`):
 * a private CA and a server certificate it signed for 127.0.0.1 / localhost, and a server
 * certificate that signs itself (trusted by nobody). Valid for 100 years; nothing is committed.
 */
export interface TestCerts {
  dir: string;
  caPem: string;
  caFile: string;
  /** Signed by the private CA. */
  server: { key: string; cert: string };
  /** Signed by itself. */
  selfSigned: { key: string; cert: string };
}

export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let cached: TestCerts | undefined;

export function makeTestCerts(): TestCerts {
  if (cached) return cached;
  const dir = tempDir('medchat-tls-');
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const san = 'subjectAltName=IP:127.0.0.1,DNS:localhost';
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '36500', '-subj', '/CN=medchat test private CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(f('ext.cnf'), `${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '36500', '-extfile', f('ext.cnf'));
  ssl('req', '-x509', ...ec, '-keyout', f('self.key'), '-out', f('self.pem'), '-days', '36500', '-subj', '/CN=127.0.0.1', '-addext', san);
  const read = (n: string) => fs.readFileSync(f(n), 'utf8');
  cached = {
    dir,
    caPem: read('ca.pem'),
    caFile: f('ca.pem'),
    server: { key: read('server.key'), cert: read('server.pem') },
    selfSigned: { key: read('self.key'), cert: read('self.pem') },
  };
  return cached;
}

/**
 * A TLS front for a plain-HTTP server on 127.0.0.1 (the service double): it terminates TLS
 * with the given certificate and pipes the bytes through, so the double still records every
 * request. Returns the https:// base URL.
 */
export async function startTlsFront(target: number, cred: { key: string; cert: string }, host = '127.0.0.1'): Promise<{ url: string; port: number; handshakes: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let handshakes = 0;
  const server = tls.createServer({ key: cred.key, cert: cred.cert }, (clear) => {
    handshakes++;
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(clear).add(upstream);
    clear.pipe(upstream).pipe(clear);
    const end = () => {
      clear.destroy();
      upstream.destroy();
    };
    clear.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://${host}:${port}`,
    port,
    handshakes: () => handshakes,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
