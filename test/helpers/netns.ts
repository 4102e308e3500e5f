import { spawnSync } from 'node:child_process';

/** One participant's network namespace, joined to the root namespace by a veth pair of its own. */
export interface NetHost {
  readonly name: string;
  readonly ns: string;
  /** Its address, and the root namespace's end of its link (where the database listens for it). */
  readonly ip: string;
  readonly gateway: string;
  /** The link's root-side interface: down cuts this host off from everyone. */
  readonly link: string;
}

export interface Net {
  readonly hosts: readonly NetHost[];
  /** The subnet every host is in (for the database's pg_hba). */
  readonly subnet: string;
  cut(host: NetHost): void;
  heal(host: NetHost): void;
  /** Removes every namespace and link it made, whatever state they are in. */
  remove(): void;
}

function ip(args: readonly string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${(result.stderr || String(result.error)).trim()}`);
}

/**
 * Network namespaces for `names`, each with a /30 link to the root namespace on private
 * addresses (10.N.i.0/30). Hosts reach the root namespace (the database) and not each other:
 * two hosts are partitioned from each other, never from the database, unless a link is cut.
 * Returns why it cannot (not root, no `ip`, no namespaces) instead of throwing.
 */
export function makeNet(names: readonly string[]): Net | string {
  if (process.getuid?.() !== 0) return 'network namespaces need root (CI runs as root)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'the ip command (iproute2) is not installed';
  const tag = (process.pid % 0xffff).toString(16);
  const octet = 100 + (process.pid % 100);
  const hosts: NetHost[] = names.map((name, i) => ({
    name,
    ns: `teamd-${tag}-${name}`,
    ip: `10.${octet}.${i + 1}.2`,
    gateway: `10.${octet}.${i + 1}.1`,
    link: `tdr${tag}${i}`,
  }));
  const net: Net = {
    hosts,
    subnet: `10.${octet}.0.0/16`,
    cut: (host) => ip(['link', 'set', host.link, 'down']),
    heal: (host) => ip(['link', 'set', host.link, 'up']),
    remove: () => {
      for (const host of hosts) {
        spawnSync('ip', ['netns', 'del', host.ns]);
        spawnSync('ip', ['link', 'del', host.link]);
      }
    },
  };
  try {
    for (const [i, host] of hosts.entries()) {
      const peer = `tdh${tag}${i}`;
      ip(['netns', 'add', host.ns]);
      ip(['link', 'add', host.link, 'type', 'veth', 'peer', 'name', peer]);
      ip(['link', 'set', peer, 'netns', host.ns]);
      ip(['addr', 'add', `${host.gateway}/30`, 'dev', host.link]);
      ip(['link', 'set', host.link, 'up']);
      ip(['netns', 'exec', host.ns, 'ip', 'addr', 'add', `${host.ip}/30`, 'dev', peer]);
      ip(['netns', 'exec', host.ns, 'ip', 'link', 'set', peer, 'up']);
      ip(['netns', 'exec', host.ns, 'ip', 'link', 'set', 'lo', 'up']);
    }
  } catch (error) {
    net.remove();
    return `network namespaces cannot be made here: ${(error as Error).message}`;
  }
  return net;
}
