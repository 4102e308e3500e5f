/** Variables a command never sees: the model's credentials and endpoint, and teamd's own wiring. */
const ALWAYS_SECRET = [/^ANTHROPIC_/, /^TEAMD_/, /^CLAUDE_/];

/**
 * The environment a teammate's command runs with: the teammate's own, less every secret (the
 * patterns above and the names the team's settings list), plus the marker that lets the daemon
 * find the command's processes again.
 */
export function commandEnv(base: NodeJS.ProcessEnv, secretNames: readonly string[], marker: { name: string; value: string }): NodeJS.ProcessEnv {
  const listed = new Set(secretNames);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || listed.has(name) || ALWAYS_SECRET.some((pattern) => pattern.test(name))) continue;
    env[name] = value;
  }
  env[marker.name] = marker.value;
  return env;
}
