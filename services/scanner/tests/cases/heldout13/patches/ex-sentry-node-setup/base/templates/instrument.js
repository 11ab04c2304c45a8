// Sentry instrumentation — load before anything else.
const Sentry = require("@sentry/node");

const SECRET_FIELD = /pass(word)?|secret|token|api[-_]?key|authorization|cookie/i;

function scrub(obj) {
  if (!obj || typeof obj !== "object") return obj;
  for (const key of Object.keys(obj)) {
    if (SECRET_FIELD.test(key)) obj[key] = "[scrubbed]";
    else if (typeof obj[key] === "object") scrub(obj[key]);
  }
  return obj;
}

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  environment: process.env.NODE_ENV || "development",
  release: process.env.GIT_SHA,
  sendDefaultPii: false,
  tracesSampleRate: process.env.NODE_ENV === "production" ? 0.1 : 1.0,
  beforeSend(event) {
    if (event.request) {
      delete event.request.cookies;
      scrub(event.request.headers);
      scrub(event.request.data);
    }
    return event;
  },
});

module.exports = Sentry;
