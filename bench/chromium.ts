/**
 * Headless Chromium as this machine allows it (the dashboard's bench and tests): as root without
 * its own sandbox, and with none of its background connections, which the closed network refuses.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
