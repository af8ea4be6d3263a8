// The server's logs and metrics, made once from its settings: the logger (stderr), the metrics
// registry when QUIRE_METRICS=1, the request observer, and the delivery attempts' observer.
import { logKind } from '../delivery/attempt-outcome.ts';
import type { ObservedAttempt } from '../delivery/delivery-runner.ts';
import { createLogger, type DeliveryLine, type LogFormat, type Logger } from './log-lines.ts';
import { createMetrics, type Metrics, type PendingDeliveries } from './metrics.ts';
import { createRequestObserver, type RequestObserver } from './request-observer.ts';

export interface ServerObservability {
  logger: Logger;
  metrics: Metrics | null;
  requests: RequestObserver;
  observeAttempt(attempt: ObservedAttempt): void;
}

const RESULT = { delivered: 'delivered', pending: 'retry', failed: 'failed' } as const;

/** The log line of one delivery attempt (the server's and `quire worker`'s). */
export function deliveryLine({ delivery, verdict, result }: ObservedAttempt): DeliveryLine {
  return {
    delivery: delivery.id,
    site: delivery.siteId,
    event: delivery.event,
    slug: delivery.slug,
    attempt: delivery.attempts + 1,
    result: RESULT[verdict],
    status: result.attempt.status,
    errorKind: logKind(result.outcome),
    ms: result.attempt.durationMs,
  };
}

export function createServerObservability(opts: {
  format: LogFormat;
  metrics: boolean;
  pending: (() => PendingDeliveries | Promise<PendingDeliveries>) | null;
  /** The metric label of a request path (the server's route table). */
  routePattern: (path: string) => string;
  write?: (chunk: string) => void;
}): ServerObservability {
  const logger = createLogger({ format: opts.format, write: opts.write ?? ((chunk) => process.stderr.write(chunk)) });
  const metrics = opts.metrics ? createMetrics({ pending: opts.pending }) : null;
  return {
    logger,
    metrics,
    requests: createRequestObserver({ logger, metrics, routePattern: opts.routePattern }),
    observeAttempt(attempt) {
      const line = deliveryLine(attempt);
      logger.delivery(line);
      metrics?.observeDeliveryAttempt(RESULT[attempt.verdict]);
    },
  };
}
