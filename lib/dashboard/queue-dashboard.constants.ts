/** Injection token of the dashboard's resolved options. */
export const QUEUE_DASHBOARD_OPTIONS = 'nestjs-sqlite-queue:dashboard_options';
