/** The model id of the deterministic model the daemon serves (DESIGN §4). */
export const OFFLINE_MODEL = 'offline';
/** The daemon tells each teammate where its offline model listens. */
export const OFFLINE_URL_ENV = 'TEAMD_OFFLINE_URL';
/** ...and the key it accepts (a TEAMD_ variable, so no command ever sees it). */
export const OFFLINE_KEY_ENV = 'TEAMD_OFFLINE_KEY';
export const TEAMMATE_HEADER = 'x-teamd-teammate';
