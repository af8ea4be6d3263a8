// The server's logs and metrics, made once from its settings: the logger (stderr), the metrics
// registry when QUIRE_METRICS=1, the request observer, and the delivery attempts' observer.
import type { ObservedAttempt } from '../delivery/delivery-runner.ts';
import { createLogger, type LogFormat, type Logger } from './log-lines.ts';
import { createMetrics, type Metrics, type PendingDeliveries } from './metrics.ts';
import { createRequestObserver, type RequestObserver } from './request-observer.ts';

export interface ServerObservability {
  logger: Logger;
  metrics: Metrics | null;
  requests: RequestObserver;
  observeAttempt(attempt: ObservedAttempt): void;
}

const RESULT = { delivered: 'delivered', pending: 'retry', failed: 'failed' } as const;

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
    observeAttempt({ delivery, verdict, result }) {
      const outcome = RESULT[verdict];
      logger.delivery({
        delivery: delivery.id,
        site: delivery.siteId,
        event: delivery.event,
        slug: delivery.slug,
        attempt: delivery.attempts + 1,
        result: outcome,
        status: result.attempt.status,
        errorKind: result.errorKind,
        ms: result.attempt.durationMs,
      });
      metrics?.observeDeliveryAttempt(outcome);
    },
  };
}
