import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readTextIfExists } from '../fs/read-text.js';
import { readSettingsFile } from './settings.js';

/**
 * Adds a rule to a settings file (created if missing), keeping everything else in it. The file
 * is checked first: a file that does not parse is left alone and the error says where.
 */
export function addRuleToSettings(file: string, list: 'allow' | 'deny' | 'ask', rule: string): void {
  readSettingsFile(file);
  const raw = readTextIfExists(file);
  const json = (raw === null ? {} : JSON.parse(raw)) as { permissions?: Record<string, unknown> };
  const permissions = (json.permissions ??= {});
  const rules = Array.isArray(permissions[list]) ? (permissions[list] as string[]) : [];
  if (!rules.includes(rule)) rules.push(rule);
  permissions[list] = rules;
  writeFileAtomicSync(file, `${JSON.stringify(json, null, 2)}\n`);
}
