// The operator console's screens, in navigation order: the merchant console's screen contract
// (../../app/screens/index.js), except that every screen is the operator's (no `roles`) and `session` is the admin
// session (GET /api/admin/console/session). A screen exists only where an admin route does. ONE LINE PER SCREEN.
import reviews from './reviews.js';
import workflows from './workflows.js';
import deadDeliveries from './dead-deliveries.js';
import denyList from './deny-list.js';
import health from './health.js';
import dailySummary from './daily-summary.js';

export const ADMIN_SCREENS = [
  reviews,
  workflows,
  deadDeliveries,
  denyList,
  health,
  dailySummary,
];
