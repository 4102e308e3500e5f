/**
 * What a command takes from the teammate's environment: what programs need to find their tools,
 * speak the person's language and trust their certificates. Never a credential: a name not here
 * (AWS_*, GITHUB_TOKEN, NPM_TOKEN, PGPASSWORD, DATABASE_URL, ...) reaches no command unless the
 * team's settings pass it by name (`passEnv`).
 */
const PASSED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TZ',
  'TMPDIR',
  'CI',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
]);
const PASSED_PATTERNS = [/^LC_[A-Z]+$/];

/**
 * Never passed, even when named in `passEnv`: the model's credentials and endpoint, teamd's own
 * wiring (the store's URL among it), and systemd's notify socket (only the daemon speaks for its service).
 */
const ALWAYS_SECRET = [/^ANTHROPIC_/, /^TEAMD_/, /^CLAUDE_/, /^NOTIFY_SOCKET$/];

export interface CommandEnvPolicy {
  /** Names the team passes to commands besides the usual ones (settings `passEnv`): it decides they are no secret. */
  readonly passNames: readonly string[];
  /** Names never passed, even the usual ones (settings `secretEnv`). */
  readonly secretNames: readonly string[];
}

/**
 * The environment a teammate's command (and a workspace MCP server) runs with: allow-listed from
 * the teammate's own, plus the marker that lets the daemon find the command's processes again.
 */
export function commandEnv(base: NodeJS.ProcessEnv, policy: CommandEnvPolicy, marker: { name: string; value: string }): NodeJS.ProcessEnv {
  const passed = new Set(policy.passNames);
  const secret = new Set(policy.secretNames);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || secret.has(name) || ALWAYS_SECRET.some((pattern) => pattern.test(name))) continue;
    if (PASSED.has(name) || passed.has(name) || PASSED_PATTERNS.some((pattern) => pattern.test(name))) env[name] = value;
  }
  env[marker.name] = marker.value;
  return env;
}

/** The team settings' say on commands' environments. */
export function envPolicyOf(settings: { readonly passEnv: readonly string[]; readonly secretEnv: readonly string[] }): CommandEnvPolicy {
  return { passNames: settings.passEnv, secretNames: settings.secretEnv };
}
