import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { makeTempDir } from './temp-dir.js';

export interface TestCa {
  /** The CA's certificate (PEM file): what NODE_EXTRA_CA_CERTS names. */
  readonly caFile: string;
  /** A server certificate for 127.0.0.1 signed by that CA, and its key (PEM text). */
  readonly cert: string;
  readonly key: string;
}

/** A throwaway CA and a 127.0.0.1 server certificate it signed, made with the openssl command. */
export function makeTestCa(): TestCa {
  const dir = makeTempDir('teamd-ca-');
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=teamd test CA');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
  return { caFile: at('ca.pem'), cert: fs.readFileSync(at('server.pem'), 'utf8'), key: fs.readFileSync(at('server.key'), 'utf8') };
}

/** TLS in front of a plain TCP port on 127.0.0.1, with the test CA's server certificate. */
export async function tlsProxy(ca: TestCa, targetPort: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: ca.key, cert: ca.cert }, (secure) => {
    const plain = net.connect(targetPort, '127.0.0.1');
    sockets.add(secure).add(plain);
    secure.pipe(plain).pipe(secure);
    secure.on('error', () => plain.destroy());
    plain.on('error', () => secure.destroy());
    secure.on('close', () => sockets.delete(secure));
    plain.on('close', () => sockets.delete(plain));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
