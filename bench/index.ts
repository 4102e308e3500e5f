import { benchBoard } from './board.js';
import { benchCron } from './cron.js';
import { benchDaemon } from './daemon.js';
import { benchMailbox } from './mailbox.js';
import { benchModel } from './model.js';
import { benchScale } from './scale.js';
import { benchShape } from './shape/index.js';
import { benchStartup } from './startup.js';
import { benchTokens } from './tokens.js';
import { benchTeam } from './team.js';
import { benchStore } from './store.js';
import { benchUi } from './ui.js';

const BENCHES: Record<string, () => Promise<void>> = {
  board: benchBoard,
  mailbox: benchMailbox,
  daemon: benchDaemon,
  team: benchTeam,
  model: benchModel,
  tokens: benchTokens,
  scale: benchScale,
  cron: benchCron,
  store: benchStore,
  shape: benchShape,
  startup: benchStartup,
  ui: benchUi,
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exitCode = 2;
} else {
  for (const name of requested.length > 0 ? requested : Object.keys(BENCHES)) await BENCHES[name]!();
}
