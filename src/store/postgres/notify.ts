/** The one LISTEN/NOTIFY channel of teamd; each payload names its team (several teams share a database). */
export const NOTIFY_CHANNEL = 'teamd';
