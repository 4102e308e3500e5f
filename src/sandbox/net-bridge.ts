/**
 * The inside end of the network leash. A sandboxed command has its own network namespace with
 * only a loopback device; the teammate's proxy listens on a Unix socket bound into it. This small
 * program, run by the sandbox's node before the command, listens on 127.0.0.1:PROXY_PORT inside
 * the namespace, hands each connection to the socket, then runs the command and exits as it
 * does (same code, same signal). Programs find it through HTTP(S)_PROXY; one that ignores those
 * variables has no network at all.
 */

/** Where the proxy's socket is bound inside the sandbox (the sandbox's own /dev, a tmpfs). */
export const PROXY_SOCKET_INSIDE = '/dev/teamd-proxy.sock';
/** The port the bridge listens on, inside the command's own network namespace. */
export const PROXY_PORT = 3128;

const BRIDGE = `
const net = require('net'), cp = require('child_process');
const [socket, port, ...command] = process.argv.slice(1);
const server = net.createServer((client) => {
  const proxy = net.connect(socket);
  client.on('error', () => proxy.destroy());
  proxy.on('error', () => client.destroy());
  client.pipe(proxy).pipe(client);
});
server.on('error', (error) => { process.stderr.write('teamd: the network bridge cannot listen: ' + error.message + '\\n'); process.exit(125); });
server.listen(Number(port), '127.0.0.1', () => {
  const child = cp.spawn(command[0], command.slice(1), { stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (error) => { process.stderr.write('teamd: ' + error.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.off(name, forward);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 128 : code);
  });
});
`;

/** The argv that runs `bash -c command` behind the bridge, with `node` the teammate's own. */
export function bridgedCommand(node: string, command: readonly string[]): string[] {
  return [node, '-e', BRIDGE, PROXY_SOCKET_INSIDE, String(PROXY_PORT), ...command];
}

/** The variables that point programs at the bridge (curl, wget, npm, pip, git over https, ...); an empty NO_PROXY sends even local names through it. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    npm_config_proxy: url,
    npm_config_https_proxy: url,
  };
}
