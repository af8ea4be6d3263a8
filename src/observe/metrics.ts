// Prometheus metrics (served at /metrics when QUIRE_METRICS=1): API requests by route pattern
// and status, request latency, builds, delivery attempts by result, and the outbox's backlog.
// Labels come from small fixed sets (route patterns, methods, results), never from a raw path,
// slug or site, so a client cannot grow the series.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PendingDeliveries {
  count: number;
  /** When the oldest pending delivery was queued; null when none is pending. */
  oldestCreatedAt: number | null;
}

export interface Metrics {
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  observeBuild(result: 'ok' | 'failed'): void;
  observeDeliveryAttempt(result: 'delivered' | 'retry' | 'failed'): void;
  readonly contentType: string;
  render(): Promise<string>;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** `pending` is null when the state store could not be opened: the backlog gauges are then NaN (unknown). */
export function createMetrics({
  pending,
  now = Date.now,
}: {
  pending: (() => PendingDeliveries | Promise<PendingDeliveries>) | null;
  now?: () => number;
}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'quire_' });
  const requests = new Counter({
    name: 'quire_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route pattern.',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const builds = new Counter({
    name: 'quire_builds_total',
    help: 'Builds run by this server, by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'quire_delivery_attempts_total',
    help: 'Webhook delivery attempts, by result (delivered, retry, failed).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Both backlog gauges read one query per scrape, shared by the two.
  let backlog: { at: number; value: Promise<PendingDeliveries> } | null = null;
  const readBacklog = async () => {
    const at = now();
    if (!pending) return null;
    if (!backlog || backlog.at !== at) backlog = { at, value: Promise.resolve(pending()) };
    return backlog.value;
  };
  new Gauge({
    name: 'quire_deliveries_pending',
    help: 'Deliveries waiting to be sent or retried.',
    registers: [registry],
    async collect() {
      this.set((await readBacklog())?.count ?? NaN);
    },
  });
  new Gauge({
    name: 'quire_deliveries_oldest_pending_age_seconds',
    help: 'Age of the oldest pending delivery (0 when none is pending).',
    registers: [registry],
    async collect() {
      const value = await readBacklog();
      if (!value) return this.set(NaN);
      this.set(value.oldestCreatedAt === null ? 0 : Math.max(0, (now() - value.oldestCreatedAt) / 1000));
    },
  });
  for (const result of ['ok', 'failed']) builds.inc({ result }, 0);
  for (const result of ['delivered', 'retry', 'failed']) attempts.inc({ result }, 0);

  return {
    observeRequest(route, method, status, seconds) {
      requests.inc({ route, method: METHODS.has(method) ? method : 'other', status: String(status) });
      latency.observe({ route }, seconds);
    },
    observeBuild: (result) => builds.inc({ result }),
    observeDeliveryAttempt: (result) => attempts.inc({ result }),
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}
