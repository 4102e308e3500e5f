/** The daemon tells each teammate where its offline model listens. */
export const OFFLINE_URL_ENV = 'TEAMD_OFFLINE_URL';
